/** The product's own version: the CLI package's, read once (from src/ under the tests, dist/ otherwise). */
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

export const PRODUCT_VERSION: string = packageJson.version;
