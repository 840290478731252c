export type { MemberCommand } from './decider.js';
