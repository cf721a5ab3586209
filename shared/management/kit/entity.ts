import type { CollectionSpec } from '../../lists/index.ts';
import type { ManagementAccess } from './access.ts';
import type { SecretPath } from './sealed-secret.ts';

export type View = Record<string, unknown>;

/**
 * How a management group's record is shown, declared once per entity (in the spirit of ElectroDB's
 * entity definitions): what it is called, the list it belongs to, its view, where a secret may
 * stand, and what `expand=all` adds. The presenter (present-record.ts) is the only reader: every
 * GET, create, update and list of every group goes through it, so `fields`, `expand`, secrets and
 * `no-store` behave the same everywhere. The record type, keys and defaults live with the store
 * (shared/records, shared/store): use cases never see table keys (docs/adding-a-management-group.md).
 */
export interface EntityDeclaration<R, D> {
  /** Names the record in messages: `Client`, `Resource`, `Scope`. */
  readonly noun: string;
  /** Attributes, filters, sorts and children of its lists and records (shared/lists). */
  readonly collection: CollectionSpec;
  /** The record as callers see it: storage fields never appear; a secret the caller may see as a `SealedSecret`. */
  readonly view: (record: R, access: ManagementAccess) => View;
  /** Where a view may hold a secret: opened after `fields`; a response showing one is `no-store`. */
  readonly secrets?: readonly SecretPath[];
  /**
   * `expand=all`: the children and linked `*_data` records of ONE page (or one record) of views.
   * Nested links carry their own `*_data` (spec §2.5, §2.6, §2.9), as their link lists do.
   */
  readonly expand?: (deps: D, views: View[], access: ManagementAccess) => Promise<View[]>;
}

export const defineEntity = <R, D>(declaration: EntityDeclaration<R, D>): EntityDeclaration<R, D> => declaration;

/** The views of a subset of attributes of a record, in the declared order (links, scopes). */
export const pickView =
  <R extends object>(attributes: readonly (keyof R & string)[], extra: View = {}) =>
  (record: R): View => {
    const out: View = {};
    for (const a of attributes) if (record[a] !== undefined) out[a] = record[a];
    return { ...out, ...extra };
  };
