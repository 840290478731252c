/** @forgefold/git: repositories over the git CLI, behind the port the core depends on. */
export * from './types.js';
export * from './port.js';
export type { GitError, GitErrorTag, IndexErrorKind } from './errors.js';
export { GitRepositories, type GitRepositoriesOptions } from './repositories.js';
export type { Authorization, GitService, PushContext, PushHandlers, PushVerdict, SmartHttpRequest, UploadPackAnswer } from './smart-http.js';
export { parseCloneRequest, type CloneRequest } from './clone-pack.js';
export { lineCode, parseDiffLines, type DiffLine, type DiffLineType } from './diff.js';
export { isSha, parseSha, ZERO_SHA, EMPTY_TREE } from './objects.js';
export { isValidFullRefName, isValidNewRefName, searchRefNames, sortByVersion, compareVersionComponents, versionComponents } from './ref-names.js';
export { readAllRefFiles, readHeadBranch } from './ref-advertisement.js';
