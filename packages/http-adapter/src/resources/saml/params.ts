/** Parameters of `PUT /groups/:id/saml_provider`. */
import { optional, schema, T } from '../../http/index.js';

export const samlParams = schema(
  optional('enabled', T.Boolean),
  optional('sso_url', T.String),
  optional('certificate_fingerprint', T.String),
  optional('enforced_sso', T.Boolean),
  optional('default_membership_role', T.Integer),
);
