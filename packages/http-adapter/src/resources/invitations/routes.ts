/** Invitations of groups and projects by e-mail (lib/api/invitations.rb). */
import { ApiError, checkUnmodifiedSince, created, noContent, ok, type AnyRouteDef, type HandlerContext } from '../../http/index.js';
import { badRequest, forbidden, invitationOf, inviteOutcome, isEmail, isRubyBlank, membersOfSource, notFound, type State } from '@forgefold/core';
import { presentContext, today, type ApiDeps } from '../../app/deps.js';
import { commandRoute, listRoute } from '../../app/routes.js';
import { dateOf, findSource, mayAdminSource, sourceTypeOf, type FoundSource, type SourceKind } from '../members/source.js';
import { memberEntity } from '../members/entities.js';
import { invitationEntity } from './entities.js';
import { emailParams, inviteParams, listParams, updateParams } from './params.js';

const invitationRoutesOf = (deps: ApiDeps, kind: SourceKind): AnyRouteDef[] => {
  const base = `/${kind}/:id/invitations`;
  const type = sourceTypeOf(kind);
  const find = findSource(kind);
  /** `authorize_admin_source!`. */
  const adminOnly = (ctx: HandlerContext<unknown>, state: State, source: FoundSource) => (mayAdminSource(ctx, state, source, today(deps)) ? null : forbidden());
  return [
    commandRoute(deps, {
      method: 'POST',
      path: base,
      params: inviteParams,
      find,
      // `authorize_admin_source!` answers before the addresses are looked at.
      authorize: adminOnly,
      command: (ctx, source) => {
        const given = ctx.params.email ?? '';
        // Ruby's `''.split(',')` and `',,'.split(',')` are empty: `email_or_email_list` passes them (all? of
        // nothing) and `InviteService#blank_invites_message` answers 201 (the decider's `error`) (invitations_spec "Emails cannot be blank").
        const blank = /^,*$/.test(given);
        const emails = blank ? [] : given.split(',').map((e) => e.trim()).filter((e) => e !== '');
        if (!blank && emails.length === 0) throw ApiError.error(400, 'email is empty');
        if (emails.some((e) => !isEmail(e))) throw ApiError.error(400, 'email contains an invalid email address');
        return { type: 'InviteMembers', source_type: type, source_id: source.id, emails, access_level: ctx.params.access_level, expires_at: dateOf(ctx.params.expires_at) };
      },
      present: (done) => {
        const { failures, error } = inviteOutcome(done);
        if (error !== undefined) return created({ status: 'error', message: error });
        return created(Object.keys(failures).length > 0 ? { status: 'error', message: failures } : { status: 'success' });
      },
    }),
    listRoute(deps, {
      path: base,
      params: listParams,
      find,
      authorize: adminOnly,
      // `retrieve_member_invitations`: `where(invite_email: query)` when the query is present, the address itself.
      rows: (ctx, state, source) => {
        const q = isRubyBlank(ctx.params.query ?? '') ? null : (ctx.params.query ?? '').toLowerCase();
        return [...membersOfSource(state.members, source.type, source.id)].filter((m) => m.user_id === null && m.invite_email !== null && (q === null || m.invite_email.toLowerCase() === q));
      },
      present: invitationEntity,
    }),
    commandRoute(deps, {
      method: 'PUT',
      path: `${base}/:email`,
      params: updateParams,
      find,
      // lib/api/invitations.rb: `authorize_admin_source!`, the invitation (`not_found!`), then `bad_request!` when
      // neither access_level nor expires_at is given.
      authorize: adminOnly,
      command: ({ params }, source) => {
        if (!invitationOf(deps.app.state.members, type, source.id, params.email)) return notFound();
        if ((params.access_level === undefined || params.access_level === null) && params.expires_at === undefined) return badRequest();
        return {
        type: 'UpdateInvitation',
        source_type: type,
        source_id: source.id,
        email: params.email,
        ...(params.access_level !== undefined && params.access_level !== null ? { access_level: params.access_level } : {}),
        ...(params.expires_at !== undefined ? { expires_at: dateOf(params.expires_at) } : {}),
        };
      },
      // `present_members updated_member`: the Member entity, which has no user keys for an invitation.
      present: (done, ctx, source) => ok(memberEntity(invitationOf(done.state.members, type, source.id, ctx.params.email)!, presentContext(deps, ctx, done.state))),
    }),
    commandRoute(deps, {
      method: 'DELETE',
      path: `${base}/:email`,
      params: emailParams,
      find,
      // `authorize_admin_source!`, the invitation, then `destroy_conditionally!(invite)` (If-Unmodified-Since).
      authorize: adminOnly,
      command: (ctx, source) => {
        const invitation = invitationOf(deps.app.state.members, type, source.id, ctx.params.email);
        if (!invitation) return notFound();
        checkUnmodifiedSince(ctx.request.headers, invitation.updated_at);
        return { type: 'RemoveInvitation', source_type: type, source_id: source.id, email: ctx.params.email };
      },
      present: () => noContent(),
    }),
  ];
};

export const invitationRoutes = (deps: ApiDeps): AnyRouteDef[] => [...invitationRoutesOf(deps, 'groups'), ...invitationRoutesOf(deps, 'projects')];
