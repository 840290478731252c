/**
 * The params of a SCIM failure text (`"Error saving user with #{sanitize_request_parameters(params).inspect}: …"`)
 * against Ruby itself: random JSON bodies and queries go through `inspectedParams` and through Ruby's
 * `ActiveSupport::ParameterFilter` with 14.x's `filter_parameters`, then `Hash#inspect`. Needs Debian's ruby and
 * ruby-activesupport (.ci/run installs them for the cron oracle); skipped without them. Debian's Ruby (3.1,
 * Unicode 13) prints hashes as 2.7 did; code points whose Unicode category changed since are left out of the strings.
 */
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectedParams } from '../../packages/http-adapter/src/resources/scim/params.js';

const hasRuby = spawnSync('ruby', ['-e', 'require "json"; require "active_support"; require "active_support/parameter_filter"'], { stdio: 'ignore' }).status === 0;

/** 14.x `config/application.rb`: `config.filter_parameters`, as written there. */
const RUBY = `
require "json"
require "active_support"
require "active_support/parameter_filter"
filters = [/token$/, /password/, /secret/, /key$/, /^body$/, /^description$/, /^note$/, /^text$/, /^title$/]
filters += %i(certificate encrypted_key hook import_url otp_attempt sentry_dsn trace variables content sharedSecret)
filter = ActiveSupport::ParameterFilter.new(filters)
JSON.parse(STDIN.read).each do |c|
  params = c["query"].merge(c["body"]).merge("version" => "v2").merge(c["path"])
  puts JSON.generate(filter.filter(params).inspect)
end
`;

/** Characters whose printing does not depend on the Unicode version: below U+0860, old blocks, and edge cases. */
const char = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 0x7f }), weight: 6 },
  // U+061D was assigned in Unicode 14 (Ruby 3.1 has 13, 2.7 had 12.1).
  { arbitrary: fc.integer({ min: 0x80, max: 0x85f }).filter((code) => code !== 0x61d), weight: 3 },
  { arbitrary: fc.constantFrom(0x2028, 0x2029, 0x200b, 0xfeff, 0x00ad, 0x0378, 0xfdd0, 0xfffe, 0xffff, 0x10ffff, 0xe0001, 0xf0000, 0x1f600, 0x4e2d, 0x3042), weight: 1 },
).map((code) => String.fromCodePoint(code));
const text = fc.array(fc.oneof({ arbitrary: char, weight: 4 }, { arbitrary: fc.constantFrom('#{', '#$', '#@', '#', '\\', '"', "'"), weight: 1 }), { maxLength: 12 }).map((parts) => parts.join(''));
/** Keys, some of them filtered ones (as written, in other cases, inside longer names). */
const key = fc.oneof(
  { arbitrary: text, weight: 3 },
  { arbitrary: fc.constantFrom('token', 'access_token', 'TOKEN', 'password', 'Password', 'secret', 'key', 'ssh_key', 'keys', 'body', 'Body', 'title', 'note', 'notes', 'text', 'content', 'CONTENT_TYPE', 'sharedsecret', 'hooks', 'Trace', 'variables', 'encrypted_key_iv', 'externalId', 'userName', '1', '10'), weight: 2 },
);
const number = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0.1, 1.5, 1e15, 1e16, 1.5e15, 123456789012345.6, 1234567890123456.8, 1e-4, 1.2e-4, 9.9e-5, 1e-5, 1e20, 1e21, 1e22, 2 ** 53, 2 ** 53 + 2, -0, 5e-324),
);
const json: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    number,
    text,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const params = fc.record({ query: fc.dictionary(key, text, { maxKeys: 2 }), body: fc.dictionary(key, json, { maxKeys: 5 }), path: fc.record({ group: text }) });

describe.skipIf(!hasRuby)('the SCIM failure text’s params against Ruby (ParameterFilter, Hash#inspect)', () => {
  it('prints random bodies as Ruby does', () => {
    // Through JSON both ways, as the server and Ruby both read the body (the order of the keys included).
    const cases = fc.sample(params, { numRuns: 1000, seed: 1 }).map((c) => JSON.parse(JSON.stringify(c)) as { query: Record<string, string>; body: Record<string, unknown>; path: { group: string } });
    const ruby = spawnSync('ruby', ['-e', RUBY], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(ruby.status, ruby.stderr).toBe(0);
    const expected = ruby.stdout.trim().split('\n').map((line) => JSON.parse(line) as string);
    expect(expected).toHaveLength(cases.length);
    const differences = cases.flatMap((c, index) => {
      const ours = inspectedParams(c.query, c.body, c.path);
      return ours === expected[index] ? [] : [{ input: JSON.stringify(c), ours, ruby: expected[index] }];
    });
    expect(differences.slice(0, 5)).toEqual([]);
  });
});

describe('the SCIM failure text’s params (cases Ruby printed, checked without it)', () => {
  it('filters hashes inside nested arrays, escapes what Ruby does not print, prints floats as Float#to_s', () => {
    expect(inspectedParams({}, { list: [[{ access_token: 'x', a: 1 }]] }, { group: 'g' })).toBe('{"list"=>[[{"access_token"=>"[FILTERED]", "a"=>1}]], "version"=>"v2", "group"=>"g"}');
    expect(inspectedParams({}, { s: 'é\u0080\u0085\u2028\u0378\u{10ffff}\u{1f600}\u007f' }, { group: 'g' })).toBe('{"s"=>"é\\u0080\u0085\\u2028\\u0378\\u{10FFFF}\u{1f600}\\u007F", "version"=>"v2", "group"=>"g"}');
    expect(inspectedParams({}, { f: [1e15, 1.5e15, 123456789012345.6, 1e-4, 9.9e-5, 1e21, 150699779142117900] }, { group: 'g' })).toBe(
      '{"f"=>[1000000000000000, 1500000000000000, 123456789012345.6, 0.0001, 9.9e-05, 1.0e+21, 150699779142117900], "version"=>"v2", "group"=>"g"}',
    );
    expect(inspectedParams({}, { f: [0.5e15 + 0.5, 1.5e-7, 1.5e300] }, { group: 'g' })).toBe('{"f"=>[500000000000000.5, 1.5e-07, 1.5e+300], "version"=>"v2", "group"=>"g"}');
  });
});
