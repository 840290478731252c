import { InMemoryEventStore } from '@forgefold/core';
import { eventStoreContract } from './contract.js';

eventStoreContract('in-memory', async () => {
  const store = new InMemoryEventStore();
  return { store, another: async () => store, cleanup: () => store.close() };
});
