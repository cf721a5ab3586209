import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** Where page screenshots go (never into git: test-results/ is ignored). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'screenshots');
/** A phone-sized viewport (iPhone 12-15 class), for the pages' screenshots. */
export const PHONE = { width: 390, height: 844 } as const;

export interface BrowserLoginOptions {
  username: string;
  password: string;
  /** The current TOTP code, for a user with an authenticator (the OTP step). */
  otp?: () => string;
  /** The answer on the consent page when it shows (default `allow`). */
  decision?: 'allow' | 'deny';
  /**
   * The flow ends at the first navigation to a URL starting with this (a client's redirect URI):
   * the request is captured, answered with a blank page, and its URL returned.
   */
  stopAt?: string;
  /** Saves a full-page screenshot of each hosted page met, as `{prefix}-{login|otp|consent}.png`. */
  screenshotPrefix?: string;
}

export interface BrowserLoginResult {
  /** The captured `stopAt` URL, or the page's URL where the flow stopped. */
  url: string;
  /** Which hosted pages were shown. */
  shown: ('login' | 'otp' | 'consent')[];
}

/**
 * Drives the hosted pages in a real browser from `startUrl` (an `/authorize` or `/device` URL, or
 * `/login?interaction=`): fills the login form (`username`, `password`), the OTP step (`otp`) when
 * it shows, answers the consent page (`decision`) when it shows, and stops at `stopAt` or at the
 * first page that is none of those (an error page, a resume route's answer). Works with
 * JavaScript on or off: it only fills fields and presses the forms' buttons.
 */
export async function browserLogin(page: Page, startUrl: string, options: BrowserLoginOptions): Promise<BrowserLoginResult> {
  let captured: string | undefined;
  if (options.stopAt) {
    const prefix = options.stopAt;
    await page.route(
      (url) => url.href.startsWith(prefix),
      (route) => {
        captured ??= route.request().url();
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>captured</title>' });
      },
    );
  }
  const shown: BrowserLoginResult['shown'] = [];
  const shoot = async (name: string) => {
    if (!options.screenshotPrefix) return;
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${options.screenshotPrefix}-${name}.png`), fullPage: true });
  };
  const submit = async (button: ReturnType<Page['locator']>) => {
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), button.click()]);
  };

  await page.goto(startUrl);
  for (let step = 0; step < 8 && captured === undefined; step++) {
    // A page that answers with an error (wrong password, expired request) ends the drive: the
    // caller looks at it, and a wrong password is never sent again and again.
    if (step > 0 && (await page.locator('[role=alert]').count()) > 0) break;
    if ((await page.locator('input[name=password]').count()) > 0) {
      shown.push('login');
      await page.fill('input[name=username]', options.username);
      await page.fill('input[name=password]', options.password);
      await shoot('login');
      await submit(page.getByRole('button', { name: 'Sign in', exact: true }));
    } else if ((await page.locator('input[name=otp]').count()) > 0) {
      if (!options.otp) throw new Error('the OTP step showed, and no `otp` was given');
      shown.push('otp');
      await page.fill('input[name=otp]', options.otp());
      await shoot('otp');
      await submit(page.getByRole('button', { name: 'Verify' }));
    } else if ((await page.locator('button[name=decision]').count()) > 0) {
      shown.push('consent');
      await shoot('consent');
      await submit(page.locator(`button[name=decision][value=${options.decision ?? 'allow'}]`));
    } else {
      break;
    }
  }
  return { url: captured ?? page.url(), shown };
}
