/**
 * A passkey (a WebAuthn credential, W3C WebAuthn Level 3) a user registered, as stored at
 * `USER#{user id}` / `PASSKEY#{sha256(credential id)}` in the user's partition, so deleting the
 * user removes it (docs/passkeys.md). Only the public key is kept; nothing here is secret, but the
 * management API still shows none of the key material.
 */
export interface PasskeyRecord {
  /** The authenticator id of the management API (UUIDv7). */
  id: string;
  user_id: string;
  tenant_id: string;
  /** The credential id as the browser sends it (base64url). */
  credential_id: string;
  /** The COSE public key (base64url), as the registration's verification returned it. */
  public_key: string;
  /** The authenticator's signature counter at its last use (WebAuthn §6.1.1); 0 when it keeps none. */
  counter: number;
  /** Hints for the browser (`usb`, `internal`, `hybrid`, …), as the authenticator reported them. */
  transports?: string[];
  /** `multiDevice`: a synced passkey (`amr` `swk`); `singleDevice`: bound to one device (`hwk`). */
  device_type: 'singleDevice' | 'multiDevice';
  backed_up: boolean;
  /** The authenticator model's AAGUID (all zeros with attestation `none` on most platforms). */
  aaguid?: string;
  /** The user's name for it (default: the browser and date it was added with). */
  name: string;
  created_at: string;
  last_used_at?: string;
}

/** Passkeys one user may hold (docs/passkeys.md "Limits"): a 21st is 409. */
export const MAX_PASSKEYS_PER_USER = 20;

/** The stage's passkey policy for hosted sign-in (docs/passkeys.md "Policy"). */
export const PASSKEY_POLICIES = ['off', 'optional', 'required'] as const;
export type PasskeyPolicy = (typeof PASSKEY_POLICIES)[number];
