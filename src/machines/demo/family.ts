import { defineFamily } from '../../actors/family.ts';
import { pingPong } from './ping-pong.ts';

/** The `ping-pong` family: {@link pingPong} with a `rounds` parameter. */
export const pingPongFamily = defineFamily({
  name: 'ping-pong',
  description: 'two actors pass a ball back and forth (the smallest runnable system)',
  params: { rounds: { type: 'int', min: 1, max: 1000, default: 3, description: 'balls to pass' } },
  build: (p) => pingPong(Number(p.rounds)),
});
