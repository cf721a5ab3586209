import type { SecretBox } from '../../keys/key-store.ts';

/**
 * A signing secret still sealed, standing where the plaintext will go in a view. Views are built
 * synchronously (the list machinery maps every record of a collection through them); opening a
 * secret is a KMS Decrypt in AWS, so it happens only for the records actually returned, after
 * paging and `fields`, in `revealSecrets`.
 */
export class SealedSecret {
  constructor(readonly sealed: string) {}
  /** Never serialised sealed: a forgotten `revealSecrets` shows nothing rather than ciphertext. */
  toJSON(): undefined {
    return undefined;
  }
}

/** Opens, in place, every `resource_metadata.signing_secret` still sealed in these views. */
export async function revealSecrets(views: readonly Record<string, unknown>[], secretBox: SecretBox): Promise<void> {
  await Promise.all(
    views.map(async (view) => {
      const metadata = view.resource_metadata as Record<string, unknown> | undefined;
      const secret = metadata?.signing_secret;
      if (secret instanceof SealedSecret) metadata!.signing_secret = await secretBox.open(secret.sealed);
    }),
  );
}
