// Entry of a step-hashing thread (piscina). Plain JavaScript: worker threads on Node 20 do not
// inherit the TypeScript loader, so it is registered here before the TypeScript module loads.
import { register } from 'tsx/esm/api';

register();
const { hashCanonicalTexts } = await import('./hash-rows.ts');

export default hashCanonicalTexts;
