/**
 * Deployments, environments and clusters through a real GitLab client, unmodified: @gitbeaker/rest's `Deployments`
 * and `Environments`. Its version 43 no longer ships `ProjectClusters` (the platform removed certificate-based
 * clusters in 17.0), so the cluster calls go through the same client's requester, as that resource did.
 */
import { describe, expect, it } from 'vitest';
import { gitbeakerAsRoot } from '../repositories/support.js';

const client = gitbeakerAsRoot();

describe('@gitbeaker/rest on deployments, environments and clusters', () => {
  it('Deployments and Environments end to end', async () => {
    const api = client();
    const project = await api.Projects.create({ name: 'Client Deploys', initializeWithReadme: true });
    const id = project.id as number;
    const head = (await api.Branches.show(id, 'main')).commit.id as string;

    const deployment = await api.Deployments.create(id, 'production', head, 'main', false, { status: 'running' });
    expect(deployment).toMatchObject({ iid: 1, ref: 'main', sha: head, status: 'running', deployable: null, environment: { name: 'production', slug: 'production' } });
    const succeeded = await api.Deployments.edit(id, deployment.id as number, 'success');
    expect(succeeded.status).toBe('success');
    await expect(api.Deployments.edit(id, deployment.id as number, 'running')).rejects.toMatchObject({ cause: { response: { status: 400 } } });
    expect((await api.Deployments.show(id, deployment.id as number)).user).toMatchObject({ username: 'root' });
    expect((await api.Deployments.all(id, { environment: 'production', orderBy: 'id', sort: 'desc' })).map((d) => d.id)).toEqual([deployment.id]);
    expect(await api.Deployments.allMergeRequests(id, deployment.id as number)).toEqual([]);

    const environments = await api.Environments.all(id);
    expect(environments.map((environment) => environment.name)).toEqual(['production']);
    const review = await api.Environments.create(id, 'review/topic', { externalUrl: 'https://topic.example.com' });
    expect(review).toMatchObject({ name: 'review/topic', external_url: 'https://topic.example.com', state: 'available' });
    const edited = await api.Environments.edit(id, review.id as number, { externalUrl: 'https://topic2.example.com' });
    expect(edited.external_url).toBe('https://topic2.example.com');
    const shown = await api.Environments.show(id, environments[0]!.id as number);
    expect(shown.last_deployment).toMatchObject({ id: deployment.id, status: 'success' });
    expect((await api.Environments.stop(id, review.id as number)).state).toBe('stopped');
    await api.Environments.remove(id, review.id as number);
    expect((await api.Environments.all(id)).map((environment) => environment.name)).toEqual(['production']);
  });

  it('project clusters through the client requester', async () => {
    const api = client();
    const project = await api.Projects.create({ name: 'Client Clusters' });
    const requester = api.Deployments.requester;
    const added = await requester.post<Record<string, unknown>>(`projects/${project.id}/clusters/user`, {
      body: { name: 'client', platform_kubernetes_attributes: { api_url: 'https://k8s.example.com', token: 'client-secret-token', namespace: 'client-ns' } },
    });
    expect(added.status).toBe(201);
    const clusterId = added.body['id'] as number;
    const list = await requester.get<Record<string, unknown>[]>(`projects/${project.id}/clusters`);
    expect(list.body.map((cluster) => cluster['name'])).toEqual(['client']);
    const edited = await requester.put<Record<string, unknown>>(`projects/${project.id}/clusters/${clusterId}`, { body: { name: 'client-2' } });
    expect(edited.body['name']).toBe('client-2');
    expect(JSON.stringify([added.body, list.body, edited.body])).not.toContain('client-secret-token');
    const removed = await requester.delete(`projects/${project.id}/clusters/${clusterId}`);
    expect(removed.status).toBe(204);
  });
});
