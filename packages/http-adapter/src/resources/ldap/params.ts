/** Parameters of the LDAP group links API (ee/lib/api/ldap_group_links.rb) and of the directory sync. */
import { exactlyOneOf, optional, requires, schema, T } from '../../http/index.js';

export const addParams = schema(
  optional('cn', T.String),
  optional('filter', T.String),
  requires('group_access', T.Integer, { values: [10, 20, 30, 40, 50] }),
  requires('provider', T.String),
  exactlyOneOf('cn', 'filter'),
);

/** `DELETE /groups/:id/ldap_group_links`: cn or filter, and the provider (`requires 'provider'`). */
export const removeParams = schema(optional('cn', T.String), optional('filter', T.String), requires('provider', T.String), exactlyOneOf('cn', 'filter'));

export const syncParams = schema(requires('entries', T.JSON));
