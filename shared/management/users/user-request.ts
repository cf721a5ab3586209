import { listQuerySchema, recordQuerySchema, usersCollection } from '../../lists/index.ts';

/** Query schemas of this area, built once per container (docs/lists.md §9). */
export const userRecordQuery = recordQuerySchema(usersCollection);
export const userListQuery = listQuerySchema(usersCollection);
