/**
 * SCIM request bodies → commands: the User resource of POST and PUT, and PATCH operations (RFC 7644 §3.5.2),
 * with the leniency identity providers need: `op` in any case, path-less value objects (with dotted or
 * value-path keys), booleans as "True"/"False" strings, attributes we do not hold ignored.
 */
import * as E from 'fp-ts/lib/Either.js';
import { parseFilter, compileFilter, type Filter, type FilterSchema } from './filter.js';
import { scimUserFilterSchema, type ScimEmail } from './queries.js';
import type { ScimChanges } from './commands.js';
import { isRubyBlank } from '../shared/validation.js';

export type ScimType = 'invalidFilter' | 'invalidValue' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'uniqueness' | 'mutability' | 'tooMany';

export interface ScimRequestError {
  readonly status: number;
  readonly scimType?: ScimType;
  readonly detail: string;
}

const invalidValue = (detail: string): ScimRequestError => ({ status: 400, scimType: 'invalidValue', detail });
const invalidSyntax = (detail: string): ScimRequestError => ({ status: 400, scimType: 'invalidSyntax', detail });

const CORE_USER_URN = 'urn:ietf:params:scim:schemas:core:2.0:user';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A key of an object, case-insensitively (attribute names are case-insensitive). */
const field = (object: Record<string, unknown>, name: string): unknown => {
  if (name in object) return object[name];
  const lower = name.toLowerCase();
  for (const key of Object.keys(object)) if (key.toLowerCase() === lower) return object[key];
  return undefined;
};

/** JSON booleans, and the strings "true"/"false" in any case (Entra sends "True"/"False"). */
export const scimBoolean = (value: unknown): boolean | undefined => {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
  return undefined;
};

const scimString = (value: unknown): string | undefined => (typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : undefined);

/** The platform's choice of e-mail: the first entry typed "work" or marked primary. */
const pickEmail = (emails: unknown): string | undefined => {
  const list = Array.isArray(emails) ? emails : isObject(emails) ? [emails] : [];
  for (const entry of list) {
    if (!isObject(entry)) continue;
    const type = field(entry, 'type');
    if ((typeof type === 'string' && type.toLowerCase() === 'work') || scimBoolean(field(entry, 'primary')) === true) return scimString(field(entry, 'value'));
  }
  return undefined;
};

export interface ParsedUser {
  readonly extern_uid?: string;
  readonly user_name?: string;
  readonly email?: string;
  readonly name?: string;
  readonly given_name: string | null;
  readonly family_name: string | null;
  readonly active?: boolean;
}

const blankToUndefined = (value: string | undefined): string | undefined => (value === undefined || isRubyBlank(value) ? undefined : value);

/**
 * A User resource (POST/PUT body): `externalId`, `userName`, the work (or primary) e-mail, the name — `formatted`,
 * else "givenName familyName", else `displayName` — and `active`. Unknown attributes are ignored. A blank value is
 * taken for an absent one, but with `keepBlankEmail` (POST) a blank e-mail that is sent stays: the platform's
 * `post_params` drops only nil values, so the blank e-mail reaches the User's save (412 "… Email can't be blank").
 */
export const parseUserResource = (body: Record<string, unknown>, options: { readonly keepBlankEmail?: boolean } = {}): E.Either<ScimRequestError, ParsedUser> => {
  const name = field(body, 'name');
  const nameObject = isObject(name) ? name : {};
  const given = blankToUndefined(scimString(field(nameObject, 'givenName')));
  const family = blankToUndefined(scimString(field(nameObject, 'familyName')));
  const formatted =
    blankToUndefined(scimString(field(nameObject, 'formatted'))) ??
    blankToUndefined(scimString(body['name.formatted'])) ??
    blankToUndefined([given, family].filter((part) => part !== undefined).join(' ')) ??
    blankToUndefined(scimString(field(body, 'displayName')));
  const rawActive = field(body, 'active');
  const active = rawActive === undefined || rawActive === null ? undefined : scimBoolean(rawActive);
  if (rawActive !== undefined && rawActive !== null && active === undefined) return E.left(invalidValue('Attribute "active" must be a boolean'));
  const externalId = field(body, 'externalId');
  return E.right({
    ...(blankToUndefined(scimString(externalId)) !== undefined ? { extern_uid: scimString(externalId)! } : {}),
    ...(blankToUndefined(scimString(field(body, 'userName'))) !== undefined ? { user_name: scimString(field(body, 'userName'))! } : {}),
    ...((options.keepBlankEmail === true ? pickEmail(field(body, 'emails')) : blankToUndefined(pickEmail(field(body, 'emails')))) !== undefined ? { email: pickEmail(field(body, 'emails'))! } : {}),
    ...(formatted !== undefined ? { name: formatted } : {}),
    given_name: given ?? null,
    family_name: family ?? null,
    ...(active !== undefined ? { active } : {}),
  });
};

/** The attributes a POST must carry (the decision): a 400 `invalidValue` names the first missing one. */
export const requireProvisioningAttributes = (
  parsed: ParsedUser,
  required: readonly ('externalId' | 'userName' | 'emails' | 'name')[] = ['externalId', 'userName', 'emails', 'name'],
): E.Either<ScimRequestError, Required<Omit<ParsedUser, 'active'>> & { active: boolean }> => {
  const present = { externalId: parsed.extern_uid, userName: parsed.user_name, emails: parsed.email, name: parsed.name };
  for (const attribute of required) {
    if (present[attribute] === undefined) {
      const what = attribute === 'emails' ? 'emails (a work e-mail address)' : attribute;
      return E.left(invalidValue(`Missing required attribute: ${what}`));
    }
  }
  return E.right({
    extern_uid: parsed.extern_uid ?? '',
    user_name: parsed.user_name!,
    email: parsed.email!,
    name: parsed.name!,
    given_name: parsed.given_name,
    family_name: parsed.family_name,
    active: parsed.active ?? true,
  });
};

// ---------------------------------------------------------------------------------------------------------------
// PATCH

type Target =
  | { readonly kind: 'path'; readonly uri: string | null; readonly attr: string; readonly sub: string | null; readonly where: Filter | null }
  | { readonly kind: 'valuePath'; readonly uri: string | null; readonly attr: string; readonly filter: Filter };

/** PATH = attrPath / valuePath [subAttr] (RFC 7644 §3.5.2), read with the filter parser. */
export const parsePatchPath = (path: string): E.Either<ScimRequestError, Target> => {
  const asValuePath = parseFilter(path);
  // Beyond the filter bounds: the answer a GET gets for the same filter, not a path echoed whole.
  if (E.isLeft(asValuePath) && asValuePath.left.tooComplex) return E.left({ status: 400, scimType: 'invalidFilter', detail: asValuePath.left.detail });
  if (E.isRight(asValuePath) && asValuePath.right.type === 'has') {
    const { path: attrPath, filter } = asValuePath.right;
    return E.right({ kind: 'valuePath', uri: attrPath.uri, attr: attrPath.attr, filter });
  }
  const asPresent = parseFilter(`${path} pr`);
  if (E.isRight(asPresent) && asPresent.right.type === 'pr') {
    const { path: attrPath, where } = asPresent.right;
    return E.right({ kind: 'path', uri: attrPath.uri, attr: attrPath.attr, sub: attrPath.sub, where });
  }
  return E.left({ status: 400, scimType: 'invalidPath', detail: `Invalid path "${path}"` });
};

const emailSchema = (scimUserFilterSchema.emails as { sub: FilterSchema<ScimEmail> }).sub;
/** Whether a value filter selects our one e-mail (typed "work", primary). */
const selectsWorkEmail = (filter: Filter | null): boolean => {
  if (filter === null) return true;
  const compiled = compileFilter(filter, emailSchema);
  return E.isRight(compiled) && compiled.right({ value: '', type: 'work', primary: true });
};

type MutableChanges = { -readonly [K in keyof ScimChanges]: ScimChanges[K] };

/** Applies one (path, value) of an operation to the accumulated changes. */
const apply = (changes: MutableChanges, op: 'add' | 'replace' | 'remove', target: Target, value: unknown, shown: string): E.Either<ScimRequestError, void> => {
  const ok = E.right<ScimRequestError, void>(undefined);
  if (target.uri !== null && target.uri.toLowerCase() !== CORE_USER_URN) return ok; // extension attributes we do not hold
  const attr = target.attr.toLowerCase();
  const sub = target.kind === 'path' && target.sub !== null ? target.sub.toLowerCase() : null;
  const badValue = () => E.left<ScimRequestError, void>(invalidValue(`Invalid value for attribute "${shown}"`));
  const setString = (key: 'extern_uid' | 'user_name' | 'email' | 'name'): E.Either<ScimRequestError, void> => {
    if (op === 'remove') return ok; // required attributes cannot be removed; ignored like the platform ignores `remove`
    const text = scimString(value);
    // A blank string reaches the decision: the PATCH's branch may leave it out, else the model's save fails (412).
    if (text === undefined) return badValue();
    changes[key] = text;
    return ok;
  };
  const setOptional = (key: 'given_name' | 'family_name'): E.Either<ScimRequestError, void> => {
    if (op === 'remove' || value === null) {
      changes[key] = null;
      return ok;
    }
    const text = scimString(value);
    if (text === undefined) return badValue();
    changes[key] = isRubyBlank(text) ? null : text;
    return ok;
  };
  switch (attr) {
    case 'active': {
      if (op === 'remove' || sub !== null) return ok;
      const flag = scimBoolean(value);
      if (flag === undefined) return badValue();
      changes.active = flag;
      return ok;
    }
    case 'id':
    case 'externalid':
      return sub === null ? setString('extern_uid') : ok;
    case 'username':
      return sub === null ? setString('user_name') : ok;
    case 'displayname':
      return sub === null ? setString('name') : ok;
    case 'name': {
      if (target.kind === 'valuePath') return ok;
      if (sub === 'formatted') return setString('name');
      if (sub === 'givenname') return setOptional('given_name');
      if (sub === 'familyname') return setOptional('family_name');
      if (sub !== null) return ok;
      if (op === 'remove') {
        changes.given_name = null;
        changes.family_name = null;
        return ok;
      }
      if (!isObject(value)) return badValue();
      for (const [key, inner] of Object.entries(value)) {
        const result = apply(changes, op, { kind: 'path', uri: null, attr: 'name', sub: key, where: null }, inner, `name.${key}`);
        if (E.isLeft(result)) return result;
      }
      return ok;
    }
    case 'emails': {
      if (op === 'remove') return ok;
      if (target.kind === 'valuePath') {
        if (!selectsWorkEmail(target.filter)) return ok;
        const email = isObject(value) ? scimString(field(value, 'value')) : scimString(value);
        if (email === undefined) return badValue();
        changes.email = email;
        return ok;
      }
      if (sub === null) {
        const email = pickEmail(value) ?? (Array.isArray(value) && value.length > 0 && isObject(value[0]) ? scimString(field(value[0], 'value')) : undefined);
        if (email === undefined) return badValue();
        changes.email = email;
        return ok;
      }
      if (sub !== 'value' || !selectsWorkEmail(target.where)) return ok;
      return setString('email');
    }
    default:
      return ok; // attributes we do not hold (title, addresses, enterprise extension…) are accepted and ignored
  }
};

/** The changes a PATCH body asks for, in operation order (later operations win). */
export const patchChanges = (body: Record<string, unknown>): E.Either<ScimRequestError, ScimChanges> => {
  const operations = field(body, 'Operations');
  if (!Array.isArray(operations)) return E.left(invalidSyntax('"Operations" must be an array of operations'));
  const changes: MutableChanges = {};
  for (const operation of operations) {
    if (!isObject(operation)) return E.left(invalidSyntax('Each operation must be an object'));
    const rawOp = field(operation, 'op');
    const op = typeof rawOp === 'string' ? rawOp.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') return E.left(invalidSyntax(`Unsupported operation "${String(rawOp)}"`));
    const path = field(operation, 'path');
    const value = field(operation, 'value');
    if (path === undefined || path === null || path === '') {
      if (op === 'remove') return E.left({ status: 400, scimType: 'noTarget', detail: 'A "remove" operation needs a path' });
      if (!isObject(value)) return E.left(invalidValue('An operation without a path needs an object value'));
      for (const [key, inner] of Object.entries(value)) {
        if (key.toLowerCase() === 'schemas') continue;
        const target = parsePatchPath(key);
        if (E.isLeft(target)) return target;
        const result = apply(changes, op, target.right, inner, key);
        if (E.isLeft(result)) return result;
      }
      continue;
    }
    if (typeof path !== 'string') return E.left({ status: 400, scimType: 'invalidPath', detail: 'The path must be a string' });
    const target = parsePatchPath(path);
    if (E.isLeft(target)) return target;
    const result = apply(changes, op, target.right, value, path);
    if (E.isLeft(result)) return result;
  }
  return E.right(changes);
};
