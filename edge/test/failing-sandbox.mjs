// The sandbox Worker with objects that fail to start once, for the edge tests'
// bad-input cases (startEdge's sandboxEntry). FAIL_TO_START (a binding) lists
// what fails:
//   core    an object's first core start fails (its Go instance cannot start)
//   object  the first construction of each created sandbox's object throws
// Everything else is sandbox.mjs as deployed.
import { Sandbox as DeployedSandbox } from './sandbox.mjs';

export { CreationLimiter, default } from './sandbox.mjs';

const failedObjects = new Set();
const failing = (env, what) => (env.FAIL_TO_START || '').split(' ').includes(what);

export class Sandbox extends DeployedSandbox {
  constructor(ctx, env) {
    super(ctx, env);
    const id = ctx.id.toString();
    if (failing(env, 'object') && this.meta && !failedObjects.has(id)) {
      failedObjects.add(id);
      throw new Error('injected: the object failed to start');
    }
  }

  instantiate() {
    if (failing(this.env, 'core') && !this.failedCore) {
      this.failedCore = true;
      throw new Error('injected: the core failed to start');
    }
    return super.instantiate();
  }
}
