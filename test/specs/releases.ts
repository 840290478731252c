/**
 * Decider specs of the releases module (`Releases::CreateService`, `UpdateService`, `DestroyService`, the release
 * links API): the platform's checks in its order, the events with their actor's facts, and the tag that takes its
 * release along when it is deleted through the API.
 */
import { conflict, forbidden, notFound, validation, type ForgefoldEvent } from '@forgefold/core';
import { AT, memberAdded, projectCreated, userCreated, type Spec } from './spec.js';

const A = 'a'.repeat(40);
const LATER = '2026-01-05T00:00:00.000Z';

const root = userCreated(1, 'root', { admin: true });
const dev = userCreated(2, 'dev');
const rep = userCreated(3, 'rep');
const maint = userCreated(4, 'maint');

const tagFacts = { commit_sha: A, committed_date: AT, message: '', tagger: null };
const tagged = (name: string): ForgefoldEvent => ({ type: 'TagCreated', data: { project_id: 1, name, target: A, ...tagFacts, via: 'api' } });
const base: ForgefoldEvent[] = [
  root,
  dev,
  rep,
  maint,
  projectCreated(1, 'app', 101, { kind: 'user' }),
  memberAdded(1, { project: 1 }, 2, 30),
  memberAdded(2, { project: 1 }, 3, 20),
  memberAdded(3, { project: 1 }, 4, 40),
  { type: 'BranchCreated', data: { project_id: 1, name: 'main', sha: A, via: 'api' } },
  tagged('v1.0'),
];
const protectV = (level: number): ForgefoldEvent => ({ type: 'ProtectedTagCreated', data: { project_id: 1, id: 1, name: 'v*', create_access_levels: [{ id: 1, access_level: level }], created_at: AT } });

const link = { id: 1, name: 'binary', url: 'https://example.com/app', filepath: '/bin/app', link_type: 'package', created_at: AT };
const released: ForgefoldEvent = {
  type: 'ReleaseCreated',
  data: { project_id: 1, id: 1, tag: 'v1.0', name: 'One', description: 'Notes', sha: A, author_id: 2, created_at: AT, released_at: AT, links: [link] },
};
const create = (extra: object = {}) => ({ type: 'CreateRelease', project_id: 1, tag: 'v1.0', sha: A, ...extra }) as const;

export const releaseSpecs: Record<string, Spec> = {
  'a developer releases a tag; the author is the actor, released_at defaults to now': {
    given: base,
    as: 2,
    when: create({ name: 'One', description: 'Notes', links: [{ name: 'binary', url: 'https://example.com/app', filepath: '/bin/app', link_type: 'package' }] }),
    then: [released],
  },
  'name and description may be left out (the name shows the tag; the description is null)': {
    given: base,
    as: 2,
    when: create({ released_at: LATER }),
    then: [{ type: 'ReleaseCreated', data: { project_id: 1, id: 1, tag: 'v1.0', name: null, description: null, sha: A, author_id: 2, created_at: AT, released_at: LATER, links: [] } }],
  },
  'a reporter releases nothing (403)': { given: base, as: 3, when: create(), error: forbidden() },
  'a protected tag the developer may not create is refused with TagCheck’s text (403)': {
    given: [...base, protectV(40)],
    as: 2,
    when: create(),
    error: { _tag: 'Forbidden', message: 'You are not allowed to create this tag as it is protected.' },
  },
  'a second release of a tag is 409 "Release already exists"': { given: [...base, released], as: 2, when: create(), error: conflict('Release already exists') },
  'a missing tag is refused': { given: base, as: 2, when: create({ tag: 'v9' }), error: notFound(undefined, 'Tag does not exist') },
  'an asset link with a bad URL fails the save ("Validation failed: …", 400)': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'x', url: 'javascript:alert(1)' }] }),
    error: { _tag: 'BadRequest', message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp' },
  },
  // `Release`'s `nested_attributes_duplicates` (the links' own uniqueness queries find no stored link of a new release):
  // name, url, filepath in that order, each with the release object's `to_s` as its scope.
  'duplicate asset links in one request fail the save': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'x', url: 'https://a.example.com' }, { name: 'x', url: 'https://a.example.com ' }] }),
    error: {
      _tag: 'BadRequest',
      message:
        'Validation failed: Links have duplicate values (x) for #<Release:0x0000000000000000> scope, Links have duplicate values (https://a.example.com) for #<Release:0x0000000000000000> scope',
    },
  },
  'two asset links with one URL': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'a', url: 'https://a.example.com' }, { name: 'b', url: 'https://b.example.com' }, { name: 'c', url: 'https://a.example.com' }, { name: 'd', url: 'https://b.example.com' }] }),
    error: { _tag: 'BadRequest', message: 'Validation failed: Links have duplicate values (https://a.example.com, https://b.example.com) for #<Release:0x0000000000000000> scope' },
  },
  'duplicates are not looked for when a link is invalid; every invalid link is reported': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'x', url: 'https://a.example.com' }, { name: 'x', url: 'javascript:alert(1)' }, { name: '', url: 'ftp://b.example.com' }] }),
    error: { _tag: 'BadRequest', message: "Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp, Links name can't be blank" },
  },
  'the same invalid URL twice is reported once (errors.uniq!)': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'x', url: 'javascript:1' }, { name: 'y', url: 'javascript:1' }] }),
    error: { _tag: 'BadRequest', message: 'Validation failed: Links url is blocked: Only allowed schemes are http, https, ftp' },
  },
  'links without a file path are no duplicates; a long description comes between the links\' own errors and the duplicates': {
    given: base,
    as: 2,
    when: create({ description: 'd'.repeat(1_000_001), links: [{ name: 'x', url: 'https://a.example.com' }, { name: 'x', url: 'https://b.example.com' }] }),
    error: {
      _tag: 'BadRequest',
      message: 'Validation failed: Description is too long (maximum is 1000000 characters), Links have duplicate values (x) for #<Release:0x0000000000000000> scope',
    },
  },
  'milestone titles are "not found": none are kept (400)': {
    given: base,
    as: 2,
    when: create({ milestones: ['v1', 'v2'] }),
    error: { _tag: 'BadRequest', message: 'Milestone(s) not found: v1, v2' },
  },
  'clearing milestones is a parameter, but none are kept: nothing changes, nothing is written': {
    given: [...base, released],
    as: 2,
    at: LATER,
    when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0', milestones: [] },
    then: [],
  },
  'a description beyond the text limit fails the save': {
    given: base,
    as: 2,
    when: create({ description: 'x'.repeat(1_000_001) }),
    error: { _tag: 'BadRequest', message: 'Validation failed: Description is too long (maximum is 1000000 characters)' },
  },
  'an update beyond the text limit answers the model’s errors': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0', description: 'x'.repeat(1_000_001) },
    error: validation({ description: ['is too long (maximum is 1000000 characters)'] }),
  },
  'a release is updated': {
    given: [...base, released],
    as: 2,
    at: LATER,
    when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0', description: 'More notes', released_at: LATER },
    then: [{ type: 'ReleaseUpdated', data: { project_id: 1, id: 1, updated_at: LATER, description: 'More notes', released_at: LATER } }],
  },
  'an update to the values the release holds writes nothing': {
    given: [...base, released],
    as: 2,
    at: LATER,
    when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0', name: 'One', description: 'Notes', released_at: AT },
    then: [],
  },
  'updating with nothing to change is 400 "params is empty"': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0' },
    error: { _tag: 'BadRequest', message: 'params is empty' },
  },
  'updating a release that does not exist is 403 (authorize! on no release)': { given: base, as: 2, when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0', name: 'x' }, error: forbidden() },
  'a release whose tag was pushed away is "Tag does not exist" (404)': {
    given: [...base, released, { type: 'TagDeleted', data: { project_id: 1, name: 'v1.0', old_target: A, via: 'push' } }],
    as: 2,
    when: { type: 'UpdateRelease', project_id: 1, tag: 'v1.0', name: 'x' },
    error: notFound(undefined, 'Tag does not exist'),
  },
  'a developer may not delete the release of a tag only maintainers may create': {
    given: [...base, released, protectV(40)],
    as: 2,
    when: { type: 'DeleteRelease', project_id: 1, tag: 'v1.0' },
    error: forbidden(),
  },
  'a maintainer deletes it': {
    given: [...base, released, protectV(40)],
    as: 4,
    when: { type: 'DeleteRelease', project_id: 1, tag: 'v1.0' },
    then: [{ type: 'ReleaseDeleted', data: { project_id: 1, id: 1 } }],
  },
  'the tag deleted through the API takes its release along': {
    given: [...base, released, { type: 'TagDeleted', data: { project_id: 1, name: 'v1.0', old_target: A, via: 'api' } }, tagged('v1.0')],
    as: 2,
    when: create(),
    then: [{ type: 'ReleaseCreated', data: { project_id: 1, id: 2, tag: 'v1.0', name: null, description: null, sha: A, author_id: 2, created_at: AT, released_at: AT, links: [] } }],
  },
  'a link is added to a release': {
    given: [...base, released],
    as: 2,
    when: { type: 'CreateReleaseLink', project_id: 1, tag: 'v1.0', name: 'docs', url: 'https://example.com/docs' },
    then: [{ type: 'ReleaseLinkCreated', data: { project_id: 1, release_id: 1, id: 2, name: 'docs', url: 'https://example.com/docs', filepath: null, link_type: 'other', created_at: AT } }],
  },
  'link names and URLs are unique in a release (the model’s errors, 400)': {
    given: [...base, released],
    as: 2,
    when: { type: 'CreateReleaseLink', project_id: 1, tag: 'v1.0', name: 'binary', url: 'https://example.com/app' },
    error: validation({ url: ['has already been taken'], name: ['has already been taken'] }),
  },
  // `addressable_url: { schemes: %w(http https ftp) }`: the shared URL rule (UrlBlocker's reasons after `is blocked: `).
  'a link URL without a scheme is blocked, not "must be a valid URL"': {
    given: [...base, released],
    as: 2,
    when: { type: 'CreateReleaseLink', project_id: 1, tag: 'v1.0', name: 'docs', url: 'example.com/docs' },
    error: validation({ url: ['is blocked: Only allowed schemes are http, https, ftp'] }),
  },
  'a link URL that does not parse is blocked: URI is invalid': {
    given: [...base, released],
    as: 2,
    when: { type: 'CreateReleaseLink', project_id: 1, tag: 'v1.0', name: 'docs', url: 'https://exa mple.com/docs' },
    error: validation({ url: ['is blocked: URI is invalid'] }),
  },
  'a blank link URL gets presence’s message and the validator’s': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, url: ' ' },
    error: validation({ url: ["can't be blank", 'must be a valid URL'] }),
  },
  'a link URL is kept stripped (strip_value!), and ftp is allowed': {
    given: [...base, released],
    as: 2,
    when: { type: 'CreateReleaseLink', project_id: 1, tag: 'v1.0', name: 'docs', url: ' ftp://example.com/docs\n' },
    then: [{ type: 'ReleaseLinkCreated', data: { project_id: 1, release_id: 1, id: 2, name: 'docs', url: 'ftp://example.com/docs', filepath: null, link_type: 'other', created_at: AT } }],
  },
  'a blank asset link URL in a new release': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'x', url: '' }] }),
    error: { _tag: 'BadRequest', message: "Validation failed: Links url can't be blank, Links url must be a valid URL" },
  },
  'links of a missing release are "404 Not found"': {
    given: base,
    as: 2,
    when: { type: 'CreateReleaseLink', project_id: 1, tag: 'v1.0', name: 'x', url: 'https://example.com' },
    error: notFound(undefined, '404 Not found'),
  },
  'a link is updated; its filepath must start with /': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, filepath: 'bin/app' },
    error: validation({ filepath: ['is in an invalid format'] }),
  },
  'a file path is checked for its format, then its length (128 characters)': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, filepath: `/${'x'.repeat(128)}_` },
    error: validation({ filepath: ['is in an invalid format', 'is too long (maximum is 128 characters)'] }),
  },
  'an empty file path is kept as sent': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, filepath: '' },
    then: [{ type: 'ReleaseLinkUpdated', data: { project_id: 1, release_id: 1, id: 1, filepath: '' } }],
  },
  // `allow_blank` is ActiveSupport's `blank?` (`[[:space:]]*`): U+0085 is blank, a byte-order mark (U+FEFF) is not.
  'a file path of Ruby white space only is blank: kept without checks': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, filepath: '\u0085\u3000' },
    then: [{ type: 'ReleaseLinkUpdated', data: { project_id: 1, release_id: 1, id: 1, filepath: '\u0085\u3000' } }],
  },
  'a byte-order mark is no white space to Ruby: the format is checked': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, filepath: '\ufeff' },
    error: validation({ filepath: ['is in an invalid format'] }),
  },
  'two empty file paths in one request are duplicates ("" is no nil)': {
    given: base,
    as: 2,
    when: create({ links: [{ name: 'x', url: 'https://a.example.com', filepath: '' }, { name: 'y', url: 'https://b.example.com', filepath: '' }] }),
    error: { _tag: 'BadRequest', message: 'Validation failed: Links have duplicate values () for #<Release:0x0000000000000000> scope' },
  },
  'a link is renamed': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, name: 'app' },
    then: [{ type: 'ReleaseLinkUpdated', data: { project_id: 1, release_id: 1, id: 1, name: 'app' } }],
  },
  'a link updated to the values it holds writes nothing': {
    given: [...base, released],
    as: 2,
    when: { type: 'UpdateReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1, name: 'binary', url: 'https://example.com/app', filepath: '/bin/app', link_type: 'package' },
    then: [],
  },
  'a link is deleted; a reporter may not': {
    given: [...base, released],
    as: 2,
    when: { type: 'DeleteReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1 },
    then: [{ type: 'ReleaseLinkDeleted', data: { project_id: 1, release_id: 1, id: 1 } }],
  },
  'a reporter deletes no link': { given: [...base, released], as: 3, when: { type: 'DeleteReleaseLink', project_id: 1, tag: 'v1.0', link_id: 1 }, error: forbidden() },
  'an unknown link is 404': { given: [...base, released], as: 2, when: { type: 'DeleteReleaseLink', project_id: 1, tag: 'v1.0', link_id: 9 }, error: notFound() },
};
