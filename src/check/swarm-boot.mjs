// Entry of a swarm worker thread: registers tsx (workers do not inherit the main
// thread's TypeScript loader), then runs the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./swarm-worker.ts');
