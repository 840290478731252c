/**
 * A straightforward reference evaluator of RFC 7644 filters over a rendered SCIM resource (plain JSON, as the
 * API returns it): attribute names looked up case-insensitively, strings compared case-insensitively,
 * multi-valued attributes matching when any value does. Deliberately independent of the compiled evaluator.
 */
import type { CompValue, Filter } from '@forgefold/core';

type Json = unknown;

const lookup = (object: Json, name: string): Json => {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return undefined;
  for (const [key, value] of Object.entries(object)) if (key.toLowerCase() === name.toLowerCase()) return value;
  return undefined;
};

const present = (value: Json): boolean => {
  if (value === undefined || value === null || value === '') return false;
  if (Array.isArray(value)) return value.some(present);
  if (typeof value === 'object') return Object.values(value as object).some(present);
  return true;
};

const DATE_ATTRIBUTES = new Set(['created', 'lastmodified']);

const compareOne = (op: string, actual: Json, literal: CompValue, isDate: boolean): boolean => {
  if (literal === null) return op === 'ne';
  if (typeof actual === 'boolean') {
    let wanted: boolean | undefined;
    if (typeof literal === 'boolean') wanted = literal;
    else if (typeof literal === 'string' && ['true', 'false'].includes(literal.toLowerCase())) wanted = literal.toLowerCase() === 'true';
    if (wanted === undefined) return op === 'ne';
    if (op === 'eq') return actual === wanted;
    if (op === 'ne') return actual !== wanted;
    throw new Error('boolean ordering');
  }
  if (typeof literal === 'boolean') return op === 'ne';
  const a = String(actual).toLowerCase();
  const b = String(literal).toLowerCase();
  if (isDate && !['co', 'sw', 'ew'].includes(op)) {
    const x = new Date(String(actual)).getTime();
    const y = new Date(String(literal)).getTime();
    if (Number.isNaN(x) || Number.isNaN(y)) return op === 'ne';
    return { eq: x === y, ne: x !== y, gt: x > y, ge: x >= y, lt: x < y, le: x <= y }[op as 'eq']!;
  }
  switch (op) {
    case 'eq': return a === b;
    case 'ne': return a !== b;
    case 'co': return a.indexOf(b) !== -1;
    case 'sw': return a.slice(0, b.length) === b;
    case 'ew': return b.length === 0 || a.slice(-b.length) === b;
    case 'gt': return a > b;
    case 'ge': return a >= b;
    case 'lt': return a < b;
    case 'le': return a <= b;
  }
  throw new Error(`unknown operator ${op}`);
};

/** The values a path designates on a resource (or on one element, inside a value filter). */
const valuesOf = (resource: Json, attr: string, sub: string | null, where: Filter | null): Json[] => {
  const top = lookup(resource, attr);
  const elements = Array.isArray(top) ? top : top === undefined || top === null ? [] : [top];
  if (sub === null && where === null) {
    return elements.map((element) => (typeof element === 'object' && element !== null && Array.isArray(top) ? lookup(element, 'value') : element));
  }
  return elements.filter((element) => where === null || evaluateReference(where, element)).map((element) => lookup(element, sub ?? 'value'));
};

export const evaluateReference = (filter: Filter, resource: Json): boolean => {
  switch (filter.type) {
    case 'and':
      return evaluateReference(filter.left, resource) && evaluateReference(filter.right, resource);
    case 'or':
      return evaluateReference(filter.left, resource) || evaluateReference(filter.right, resource);
    case 'not':
      return !evaluateReference(filter.filter, resource);
    case 'has': {
      const top = lookup(resource, filter.path.attr);
      const elements = Array.isArray(top) ? top : top === undefined || top === null ? [] : [top];
      return elements.some((element) => evaluateReference(filter.filter, element));
    }
    case 'pr': {
      if (filter.path.sub === null && filter.where === null) return present(lookup(resource, filter.path.attr));
      return valuesOf(resource, filter.path.attr, filter.path.sub, filter.where).some(present);
    }
    case 'cmp': {
      const values = valuesOf(resource, filter.path.attr, filter.path.sub, filter.where).filter(present);
      if (values.length === 0) return filter.value === null ? filter.op === 'eq' : filter.op === 'ne';
      const isDate = DATE_ATTRIBUTES.has((filter.path.sub ?? filter.path.attr).toLowerCase());
      return values.some((value) => compareOne(filter.op, value, filter.value, isDate));
    }
  }
};
