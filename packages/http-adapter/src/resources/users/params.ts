/** Parameters of the users API (lib/api/users.rb). */
import { allOrNoneOf, atLeastOneOf, optional, paramType, pathParam, requires, schema, T, type UploadedFile } from '../../http/index.js';

/** Grape's file parameter (the platform's WorkhorseFile): a multipart file part; a plain value "is invalid". */
const isUploadedFile = (raw: unknown): raw is UploadedFile =>
  typeof raw === 'object' && raw !== null && 'filename' in raw && typeof raw.filename === 'string' && 'data' in raw && Buffer.isBuffer(raw.data);
const FileParam = paramType<UploadedFile>('File', (raw) => (isUploadedFile(raw) ? raw : undefined));

/** The profile part of `optional_attributes` (lib/api/users.rb). */
function profileParams() {
  return [
    optional('skype', T.String),
    optional('linkedin', T.String),
    optional('twitter', T.String),
    optional('website_url', T.String),
    optional('organization', T.String),
    optional('bio', T.String),
    optional('location', T.String),
    optional('pronouns', T.String),
    optional('theme_id', T.Integer),
    optional('color_scheme_id', T.Integer),
    optional('private_profile', T.Boolean),
    optional('note', T.String),
  ] as const;
}

export const listParams = schema(
  optional('username', T.String),
  optional('extern_uid', T.String),
  optional('provider', T.String),
  optional('search', T.String),
  optional('active', T.Boolean, { default: false }),
  optional('external', T.Boolean, { default: false }),
  optional('exclude_external', T.Boolean, { default: false }),
  optional('blocked', T.Boolean, { default: false }),
  optional('created_after', T.DateTime),
  optional('created_before', T.DateTime),
  optional('without_projects', T.Boolean, { default: false }),
  optional('exclude_internal', T.Boolean, { default: false }),
  optional('admins', T.Boolean, { default: false }),
  // Not declared by the endpoint: UsersFinder reads it from the request's parameters (`enabled`, `disabled`).
  optional('two_factor', T.String),
  allOrNoneOf('extern_uid', 'provider'),
  optional('order_by', T.String, { values: ['id', 'name', 'username', 'created_at', 'updated_at'], default: 'id' }),
  optional('sort', T.String, { values: ['asc', 'desc'], default: 'desc' }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

export const createParams = schema(
  requires('email', T.String),
  requires('name', T.String),
  requires('username', T.String),
  optional('password', T.String),
  optional('reset_password', T.Boolean),
  optional('force_random_password', T.Boolean),
  atLeastOneOf('password', 'reset_password', 'force_random_password'),
  optional('skip_confirmation', T.Boolean),
  optional('admin', T.Boolean),
  optional('public_email', T.String),
  optional('avatar', FileParam),
  optional('extern_uid', T.String),
  optional('provider', T.String),
  allOrNoneOf('extern_uid', 'provider'),
  optional('projects_limit', T.Integer),
  optional('can_create_group', T.Boolean),
  optional('external', T.Boolean),
  ...profileParams(),
);

export const updateParams = schema(
  pathParam('id', T.Integer),
  optional('email', T.String),
  optional('name', T.String),
  optional('username', T.String),
  optional('password', T.String),
  optional('admin', T.Boolean),
  optional('public_email', T.String),
  optional('avatar', FileParam),
  optional('extern_uid', T.String),
  optional('provider', T.String),
  allOrNoneOf('extern_uid', 'provider'),
  optional('projects_limit', T.Integer),
  optional('can_create_group', T.Boolean),
  optional('external', T.Boolean),
  ...profileParams(),
);

export const idParams = schema(pathParam('id', T.Integer));

export const membershipsParams = schema(
  pathParam('user_id', T.Integer),
  optional('type', T.String, { values: ['Project', 'Namespace'] }),
  optional('page', T.Integer, { default: 1 }),
  optional('per_page', T.Integer, { default: 20 }),
);

export const identityParams = schema(pathParam('id', T.Integer), pathParam('provider', T.String));
