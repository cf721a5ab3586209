import type { SecretBox } from '../../keys/key-store.ts';

/**
 * A stored secret still sealed, standing where the plaintext will go in a view. Views are built
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

/** Where a group's views may hold a secret: `['client_secret']`, `['resource_metadata', 'signing_secret']`. */
export type SecretPath = readonly string[];

function parentOf(view: Record<string, unknown>, path: SecretPath): Record<string, unknown> | undefined {
  let at: unknown = view;
  for (const k of path.slice(0, -1)) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at && typeof at === 'object' ? (at as Record<string, unknown>) : undefined;
}

/**
 * Opens, in place, every secret still sealed at `paths` in these (already paged and shaped) views:
 * one SecretBox open per returned record that kept the field, never for records a page or
 * `fields` left out.
 */
export async function revealSecrets(
  views: readonly Record<string, unknown>[],
  paths: readonly SecretPath[],
  secretBox: SecretBox,
): Promise<void> {
  const opens: Promise<void>[] = [];
  for (const view of views) {
    for (const path of paths) {
      const parent = parentOf(view, path);
      const key = path[path.length - 1]!;
      const value = parent?.[key];
      if (value instanceof SealedSecret) opens.push(secretBox.open(value.sealed).then((plain) => void (parent![key] = plain)));
    }
  }
  await Promise.all(opens);
}

/** Whether any view carries a secret in clear at `paths`: the response must then be `no-store` (docs/contract.md §2). */
export const carriesSecret = (views: readonly Record<string, unknown>[], paths: readonly SecretPath[]): boolean =>
  views.some((view) => paths.some((path) => typeof parentOf(view, path)?.[path[path.length - 1]!] === 'string'));
