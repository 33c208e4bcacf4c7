// Materialization addressing: base URIs, result/state URIs, URI -> object key, and
// the rejection of anything that tries to escape.
import { describe, expect, it } from 'vitest';
// From the module itself: the storage entry point also loads the document store and apache-arrow.
import { StorageKeyError, checkKey, joinKey, keyProblem, portBaseUri, resourceOf, resultUri, stateUri, uriToKey } from '../../src/storage/keys.ts';

const port = { logicalOpId: 'LoopStart-1', portId: 0 };

describe('materialization URIs', () => {
  it('builds the base URI of a port, with and without a warehouse', () => {
    expect(portBaseUri({ wid: 3, eid: 12, port })).toBe('vfs:///wid/3/eid/12/globalportid/(logicalOpId=LoopStart-1,layerName=main,portId=0,isInternal=false,isInput=false)');
    expect(portBaseUri({ warehouse: 'texera', wid: 3, eid: 12, port: { ...port, layerName: 'l1', isInput: true } })).toBe(
      'vfs:///wh/texera/wid/3/eid/12/globalportid/(logicalOpId=LoopStart-1,layerName=l1,portId=0,isInternal=false,isInput=true)',
    );
  });

  it('derives result and state URIs from a base, and maps them to keys by namespace with wh/<name>/ removed and / replaced by _', () => {
    const base = portBaseUri({ warehouse: 'texera', wid: 3, eid: 12, port });
    expect(resultUri(base)).toBe(`${base}/result`);
    expect(stateUri(base)).toBe(`${base}/state`);
    expect(resourceOf(stateUri(base))).toBe('state');
    const gp = '(logicalOpId=LoopStart-1,layerName=main,portId=0,isInternal=false,isInput=false)';
    expect(uriToKey(resultUri(base))).toBe(`result/wid_3_eid_12_globalportid_${gp}_result`);
    expect(uriToKey(stateUri(base))).toBe(`state/wid_3_eid_12_globalportid_${gp}_state`);
    // The same port in another warehouse maps to the same key (the warehouse is dropped).
    expect(uriToKey(resultUri(portBaseUri({ wid: 3, eid: 12, port })))).toBe(uriToKey(resultUri(base)));
    expect(uriToKey(resultUri(base))).not.toBe(uriToKey(stateUri(base)));
  });

  it('accepts plain keys as document URIs in small scenarios', () => {
    expect(uriToKey('loop/in')).toBe('loop/in');
  });

  it('rejects escapes with a StorageKeyError naming the problem', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => uriToKey('vfs:///wid/1/../../etc/result'), /'\.\.' segment/],
      [() => uriToKey('vfs:////abs/result'), /absolute/],
      [() => uriToKey('vfs:///wid//1/result'), /empty segment/],
      [() => uriToKey('vfs:///wid/1/eid/2'), /end it with '\/result' or '\/state'/],
      [() => uriToKey('tables/../x'), /'\.\.' segment/],
      [() => uriToKey('s3://bucket/x'), /empty segment/],
      [() => uriToKey('/etc/passwd'), /absolute/],
      [() => resultUri('http://x/y'), /must start with 'vfs:\/\/\/'/],
      [() => resultUri(resultUri(portBaseUri({ wid: 1, eid: 1, port }))), /already a document URI/],
      [() => portBaseUri({ wid: '..', eid: 1, port }), /wid '\.\.'/],
      [() => portBaseUri({ wid: 1, eid: 1, port: { logicalOpId: 'a/b', portId: 0 } }), /logicalOpId 'a\/b'/],
      [() => checkKey('a/./b'), /'\.' segment/],
      [() => joinKey('a', '', 'b'), /empty segment/],
      [() => checkKey('x/.tmp-1'), /reserved for temporary files/],
    ];
    for (const [f, re] of cases) {
      expect(f).toThrow(StorageKeyError);
      expect(f).toThrow(re);
    }
  });

  it('keyProblem accepts ordinary keys', () => {
    for (const k of ['a', 'a/b/c.arrow', 'state/d/manual__2026-01-01T00:00:00+00:00/t/-1/_iterable_batch_0', '(x=1,y=2)']) expect(keyProblem(k)).toBeUndefined();
    expect(joinKey('base', 'dag', 3, 'key')).toBe('base/dag/3/key');
  });
});
