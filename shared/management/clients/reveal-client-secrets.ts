import type { SecretBox } from '../../keys/key-store.ts';
import { SealedSecret } from '../resources/sealed-secret.ts';

/**
 * Opens, in place, the `client_secret` still sealed in these (already paged and shaped) views.
 * One SecretBox open per returned record that kept the field: a KMS Decrypt each in AWS, so never
 * for records a page or `fields` left out.
 */
export async function revealClientSecrets(views: readonly Record<string, unknown>[], secretBox: SecretBox): Promise<void> {
  await Promise.all(
    views.map(async (view) => {
      const secret = view.client_secret;
      if (secret instanceof SealedSecret) view.client_secret = await secretBox.open(secret.sealed);
    }),
  );
}

/** Whether any view carries a secret in clear: the response must then be `no-store` (API.md §2). */
export const carriesSecret = (views: readonly Record<string, unknown>[]): boolean => views.some((v) => typeof v.client_secret === 'string');
