/** Closing a pretty-printed object cut off before its end: only cuts that cannot change a value. */
import { describe, expect, it } from 'vitest';
import { closeTruncated } from '../../src/progress/truncated-json.js';

const report = {
  id: 'q',
  runId: 'r',
  numInputRows: 74470,
  durationMs: { addBatch: 120, triggerExecution: 300 },
  sources: [{ description: 'KafkaV2[Subscribe[orders]]', numInputRows: 74470 }],
  sink: { description: 'DeltaSink' },
};
const pretty = JSON.stringify(report, null, 2);

/** The text cut right after its first occurrence of `marker`. */
const cutAfter = (marker: string) => pretty.slice(0, pretty.indexOf(marker) + marker.length);

describe('closeTruncated', () => {
  it('closes a value whose last brackets are missing, values intact', () => {
    expect(closeTruncated(pretty.slice(0, -1))).toEqual({ value: report, closed: 1 });
    const noSink = closeTruncated(cutAfter('"numInputRows": 74470\n    }\n  ],'));
    expect(noSink).toEqual({ value: { ...report, sink: undefined }, closed: 1 });
  });

  it('never keeps a number the cut may have shortened: the member goes, the rest stays', () => {
    const closed = closeTruncated(cutAfter('"numInputRows": 744'));
    expect(closed?.value).toEqual({ id: 'q', runId: 'r' });
    expect(closed?.value.numInputRows).toBeUndefined();
  });

  it('drops a string cut in the middle and a key without its value', () => {
    expect(closeTruncated(cutAfter('"description": "KafkaV2[Sub'))?.value.sources).toEqual([{}]);
    expect(closeTruncated(cutAfter('"sink"'))?.value).toEqual({ ...report, sink: undefined });
    expect(closeTruncated(cutAfter('"sink":'))?.value).toEqual({ ...report, sink: undefined });
  });

  it('leaves a value broken before its end unread (a comment inside), rather than a stub', () => {
    const commented = pretty.replace('"addBatch": 120,', '"addBatch": 120, // <-- durations');
    expect(closeTruncated(commented.slice(0, -1))).toBeNull();
  });

  it('gives null for what is no object or is not cut', () => {
    expect(closeTruncated('[1, 2')).toBeNull();
    expect(closeTruncated(pretty)).toBeNull();
    expect(closeTruncated('')).toBeNull();
  });
});
