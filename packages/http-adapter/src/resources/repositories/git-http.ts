/**
 * `git clone/fetch/push http://HOST/<namespace>/<project>.git` (Repositories::GitHttpController): HTTP basic
 * authentication with a username and a personal (or project, group) access token or the password, or `oauth2`
 * and an OAuth token; `download_code` to fetch (Reporter and above, or anyone who can see a public or internal
 * project), `push_code` to push, the protected ref rules in the pre-receive check. Anonymous on a project it
 * cannot see gets 401 with `WWW-Authenticate`, so git asks for credentials.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { canReadProject, canRepository, settingBoolean, findProjectByFullPath, findUser, findUserByEmail, findUserByUsername, resolveToken, type Actor, type Project } from '@forgefold/core';
import type { Authorization, GitService } from '@forgefold/git';
import type { RawRoute, RequestInfo } from '../../http/index.js';
import { tokenDigest, verifyPassword } from '../../app/secrets.js';
import type { ApiDeps } from '../../app/deps.js';

const GIT_PATH = /^\/(.+)\.git\/(info\/refs|git-upload-pack|git-receive-pack)$/;

const MESSAGES = {
  not_found: "The project you were looking for could not be found or you don't have permission to view it.\n",
  download: 'You are not allowed to download code from this project.\n',
  push: 'You are not allowed to push code to this project.\n',
  denied: 'HTTP Basic: Access denied\n',
  auth_download: 'You are not allowed to download code.\n',
  auth_upload: 'You are not allowed to upload code.\n',
  maintenance: 'Git push is not allowed because this GitLab instance is currently in (read-only) maintenance mode.\n',
} as const;

/** `render_missing_personal_access_token`: passwords are off for git (`password_authentication_enabled_for_git`). */
const missingPersonalAccessToken = (baseUrl: string): string =>
  "HTTP Basic: Access denied\nYou must use a personal access token with 'read_repository' or 'write_repository' scope for Git over HTTP.\n" +
  `You can generate one at ${baseUrl}/-/profile/personal_access_tokens`;

/**
 * Token scopes that allow reading and writing repositories over HTTP (`Gitlab::Auth#abilities_for_scopes`: `read_api`
 * gives `read_only_authentication_abilities`, `download_code` among them).
 */
const READ_SCOPES = new Set(['api', 'read_api', 'read_repository', 'write_repository']);
const WRITE_SCOPES = new Set(['api', 'write_repository']);

interface Caller {
  readonly userId: number;
  /** Null for a password: every ability of the user. */
  readonly scopes: readonly string[] | null;
}

/**
 * `geo`: a Geo secondary fetching with the shared secret (login `geo`): it may fetch every repository, push none.
 * `missing_token`: no valid token, and passwords are off for git (`MissingPersonalAccessTokenError`).
 */
type Credentials =
  | { readonly kind: 'none' }
  | { readonly kind: 'invalid' }
  | { readonly kind: 'missing_token' }
  | { readonly kind: 'geo' }
  | { readonly kind: 'user'; readonly caller: Caller };

const sameSecret = (given: string, secret: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
};

const basicCredentials = (req: IncomingMessage): { login: string; password: string } | null => {
  const header = req.headers.authorization;
  const match = header ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
};

/** `Gitlab::Auth.find_for_git_client`: an OAuth token for `oauth2`, an access token for any login, then the password. */
const authenticate = async (deps: ApiDeps, req: IncomingMessage): Promise<Credentials> => {
  const credentials = basicCredentials(req);
  if (!credentials) return { kind: 'none' };
  const secret = deps.config.geoSecret;
  if (secret && credentials.login === 'geo' && sameSecret(credentials.password, secret)) return { kind: 'geo' };
  const state = deps.app.state;
  const resolved = resolveToken(state.tokens, tokenDigest(credentials.password), deps.clock.now(), { impersonationEnabled: deps.config.impersonationEnabled });
  if (resolved._tag === 'Valid' && (resolved.kind !== 'oauth' || credentials.login === 'oauth2')) {
    const user = findUser(state.users, resolved.userId);
    return user && user.state === 'active' ? { kind: 'user', caller: { userId: user.id, scopes: resolved.scopes } } : { kind: 'invalid' };
  }
  if (!settingBoolean(state.settings, 'password_authentication_enabled_for_git')) return { kind: 'missing_token' };
  // The password of the user named by the login (username or e-mail), as a password login does.
  const user = findUserByUsername(state.users, credentials.login) ?? findUserByEmail(state.users, credentials.login);
  if (user && user.state === 'active' && (await verifyPassword(credentials.password, user.password_digest))) return { kind: 'user', caller: { userId: user.id, scopes: null } };
  return { kind: 'invalid' };
};

/** The decision for one service of one project (`Gitlab::GitAccess` download and push checks). */
const decide = (deps: ApiDeps, project: Project | undefined, credentials: Credentials, service: GitService, baseUrl: string): Authorization => {
  if (credentials.kind === 'invalid') return { allowed: false, status: 401, message: MESSAGES.denied };
  if (credentials.kind === 'geo') {
    if (!project) return { allowed: false, status: 404, message: MESSAGES.not_found };
    return service === 'git-upload-pack' ? { allowed: true } : { allowed: false, status: 403, message: MESSAGES.push };
  }
  if (credentials.kind === 'missing_token') return { allowed: false, status: 401, message: missingPersonalAccessToken(baseUrl) };
  const caller = credentials.kind === 'user' ? credentials.caller : null;
  const scopes = caller?.scopes ?? null;
  // `check_authentication_abilities!`: what the token's scopes allow, before the project is looked at.
  if (scopes !== null && service === 'git-upload-pack' && !scopes.some((scope) => READ_SCOPES.has(scope))) return { allowed: false, status: 403, message: MESSAGES.auth_download };
  if (scopes !== null && service !== 'git-upload-pack' && !scopes.some((scope) => WRITE_SCOPES.has(scope))) return { allowed: false, status: 403, message: MESSAGES.auth_upload };
  const state = deps.app.state;
  const userId = caller?.userId ?? null;
  if (!project || !canReadProject(state, userId, project)) {
    return caller === null ? { allowed: false, status: 401, message: MESSAGES.denied } : { allowed: false, status: 404, message: MESSAGES.not_found };
  }
  if (service === 'git-upload-pack') {
    if (canRepository(state, userId, project, 'download_code')) return { allowed: true };
    return caller === null ? { allowed: false, status: 401, message: MESSAGES.denied } : { allowed: false, status: 403, message: MESSAGES.download };
  }
  if (caller === null) return { allowed: false, status: 401, message: MESSAGES.denied };
  // EE `check_maintenance_mode!`: no push while the instance is read-only.
  if (settingBoolean(state.settings, 'maintenance_mode')) return { allowed: false, status: 403, message: MESSAGES.maintenance };
  return canRepository(state, userId, project, 'push_code') ? { allowed: true } : { allowed: false, status: 403, message: MESSAGES.push };
};

export const gitHttpRoute = (deps: ApiDeps): RawRoute => ({
  name: 'git smart HTTP',
  // Asked for every request: the substring first, the expression only for a path that can be git's.
  matches: (path) => path.includes('.git/') && GIT_PATH.test(path),
  handle: async (req: IncomingMessage, res: ServerResponse, request: RequestInfo) => {
    const [, fullPath, rest] = GIT_PATH.exec(request.path)!;
    let decodedPath: string;
    try {
      decodedPath = decodeURIComponent(fullPath!);
    } catch {
      decodedPath = '';
    }
    const project = findProjectByFullPath(deps.app.state.projects, decodedPath);
    const credentials = await authenticate(deps, req);
    const userId = credentials.kind === 'user' ? credentials.caller.userId : null;
    const actor: Actor = { userId, origin: 'api', requestId: request.requestId };
    const push = project && userId !== null ? deps.repositories.pushHandlers(project, actor, request.baseUrl) : undefined;
    const authorize = async (service: GitService) => decide(deps, project, credentials, service, request.baseUrl);
    if (!project) {
      // No repository to serve: answer from the decision alone (401 asks anonymous callers for credentials).
      const decision = decide(deps, undefined, credentials, rest === 'git-receive-pack' || /service=git-receive-pack/.test(request.query) ? 'git-receive-pack' : 'git-upload-pack', request.baseUrl);
      if (!decision.allowed) {
        const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
        if (decision.status === 401) headers['WWW-Authenticate'] = 'Basic realm="GitLab"';
        res.writeHead(decision.status, headers);
        res.end(decision.message);
      }
      return { userId };
    }
    // A repository start-up has not reconciled yet is, before git serves it.
    await deps.repositories.ready(project.id);
    const refsVersion = deps.repositories.refsVersion(project.id);
    await deps.repositories.repositories.serveHttp(project.id, req, res, {
      ...(refsVersion !== undefined ? { refsVersion } : {}),
      path: rest!,
      authorize,
      ...(push ? { push } : {}),
      onError: (error) => deps.repositories.reportError(`${rest} for project ${project.id}`, error),
    });
    return { userId };
  },
});
