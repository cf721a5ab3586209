import type { BrowserContext, CDPSession, Page } from 'playwright-core';

/**
 * A virtual WebAuthn authenticator in the page's browser context, through the DevTools protocol
 * (`WebAuthn.enable`, `WebAuthn.addVirtualAuthenticator`): a platform authenticator (CTAP2,
 * internal) that keeps discoverable credentials and verifies its user, answering without a
 * person. `options` overrides any of those settings (for example `isUserVerified: false`).
 */
export async function addVirtualAuthenticator(
  context: BrowserContext,
  page: Page,
  options: Record<string, unknown> = {},
): Promise<{ cdp: CDPSession; authenticatorId: string }> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
      ...options,
    },
  });
  return { cdp, authenticatorId };
}
