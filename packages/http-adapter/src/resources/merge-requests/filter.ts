import type { MergeRequest } from '@forgefold/core';

/** The list filters of `GET …/merge_requests` (and of a deployment's merge requests), as decoded. */
export interface MergeRequestFilters {
  readonly state?: string | null | undefined;
  readonly order_by?: string | null | undefined;
  readonly sort?: string | null | undefined;
  readonly source_branch?: string | null | undefined;
  readonly target_branch?: string | null | undefined;
  readonly author_id?: number | null | undefined;
  readonly search?: string | null | undefined;
  readonly iids?: readonly (number | null)[] | null | undefined;
}

/** `MergeRequestsFinder` over a project's merge requests: state, branches, author, iids, search; then its order. */
export const filterMergeRequests = (list: readonly MergeRequest[], params: MergeRequestFilters): MergeRequest[] => {
  const search = params.search?.toLowerCase();
  const iids = params.iids?.filter((iid): iid is number => iid !== null);
  const rows = list.filter(
    (mr) =>
      (params.state === 'all' || params.state === mr.state) &&
      (!params.source_branch || mr.source_branch === params.source_branch) &&
      (!params.target_branch || mr.target_branch === params.target_branch) &&
      (params.author_id === undefined || params.author_id === null || mr.author_id === params.author_id) &&
      (!iids || iids.length === 0 || iids.includes(mr.iid)) &&
      (!search || `${mr.title}\n${mr.description}`.toLowerCase().includes(search)),
  );
  const key = params.order_by === 'updated_at' ? 'updated_at' : 'created_at';
  rows.sort((a, b) => (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : a.id - b.id));
  if (params.sort === 'desc') rows.reverse();
  return rows;
};
