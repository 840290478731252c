/**
 * What the specs prove together: every command of every module has a spec, and — folding every spec's events —
 * each module's evolve and each follower write only the slices of their own module (and the sequences).
 */
import { describe, expect, it } from 'vitest';
import { forgefold, forgefoldModules, type DomainEvent, type State } from '@forgefold/core';
import { decided, type Spec } from './spec.js';
import { userSpecs } from './users.js';
import { tokenSpecs } from './tokens.js';
import { groupSpecs } from './groups.js';
import { projectSpecs } from './projects.js';
import { memberSpecs } from './members.js';
import { scimSpecs } from './scim.js';
import { repositorySpecs } from './repositories.js';
import { deploymentSpecs } from './deployments.js';
import { releaseSpecs } from './releases.js';
import { clusterSpecs } from './clusters.js';
import { pipelineSpecs } from './pipelines.js';
import { scheduleSpecs } from './schedules.js';
import { discussionSpecs, epicSpecs, issueSpecs, snippetSpecs } from './discussions.js';
import { geoSpecs } from './geo.js';
import { settingEffectSpecs, settingSpecs } from './settings.js';

const specs: Spec[] = [userSpecs, tokenSpecs, groupSpecs, projectSpecs, memberSpecs, scimSpecs, repositorySpecs, deploymentSpecs, clusterSpecs, pipelineSpecs, scheduleSpecs, issueSpecs, snippetSpecs, epicSpecs, discussionSpecs, geoSpecs, settingSpecs, settingEffectSpecs, releaseSpecs].flatMap((group) => Object.values(group));

/** Every (module, handler) that applies an event type: the owner's evolve, then the followers. */
const handlersOf = (type: string) =>
  forgefoldModules.flatMap((module) => {
    const owned = Object.keys(module.initial());
    const handlers: { module: string; owned: string[]; apply: (state: State, event: DomainEvent) => void }[] = [];
    if (type in module.events) handlers.push({ module: module.name, owned, apply: module.evolve as (state: State, event: DomainEvent) => void });
    const follow = module.follows?.[type];
    if (follow) handlers.push({ module: `${module.name} (follows ${type})`, owned, apply: follow as (state: State, event: DomainEvent) => void });
    return handlers;
  });

describe('module kit', () => {
  it('has a given/when/then spec for every command of every module', () => {
    const specified = new Set<string>(specs.map((spec) => spec.when.type));
    const missing = forgefoldModules.flatMap((module) => module.commands.filter((type) => !specified.has(type)).map((type) => `${module.name}: ${type}`));
    expect(missing).toEqual([]);
  });

  it('each evolve and follower writes only its own slices and the sequences', () => {
    const trespasses = new Set<string>();
    let applied = 0;
    for (const spec of specs) {
      const state = forgefold.decider.initialState() as unknown as Record<string, unknown>;
      for (const event of [...(spec.given ?? []), ...decided(spec)]) {
        for (const handler of handlersOf(event.type)) {
          const others = Object.keys(state).filter((slice) => slice !== 'sequences' && !handler.owned.includes(slice));
          const before = others.map((slice) => JSON.stringify(state[slice]));
          handler.apply(state as unknown as State, event);
          applied++;
          others.forEach((slice, index) => {
            if (JSON.stringify(state[slice]) !== before[index]) trespasses.add(`${handler.module} wrote ${slice} on ${event.type}`);
          });
        }
      }
    }
    expect(applied).toBeGreaterThan(500);
    expect([...trespasses]).toEqual([]);
  });
});
