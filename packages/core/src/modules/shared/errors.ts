/** Errors several modules answer with the same words. */
import { notFound } from '../../kernel/domain-error.js';

/** Rails' `ActiveRecord::RecordNotFound` as the API renders it: `{"message":"404 Not found"}`. */
export const RECORD_NOT_FOUND = notFound(undefined, '404 Not found');
