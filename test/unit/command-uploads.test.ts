/**
 * Command uploads, the pure parts (contract section 13; defect 17 of issue 13): the bound on uploads in
 * flight, whose scratch directories are abandoned, and the notes a crash leaves behind.
 */
import fc from 'fast-check';
import { createUploadGate, reservedBytes } from '../../src/plugins/public-api/server/src/uploads/gate';
import { parseIntent, serializeIntent } from '../../src/plugins/public-api/server/src/uploads/intent';
import {
  OWNER_STALE_MS,
  hostLabel,
  isAbandoned,
  ownerDirName,
  parseOwnerDirName,
  type Owner,
  type Surroundings,
} from '../../src/plugins/public-api/server/src/uploads/owners';

describe('the bound on uploads in flight', () => {
  type Step = { kind: 'enter'; bytes: number } | { kind: 'release'; index: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('enter' as const), bytes: fc.integer({ min: 0, max: 2_000 }) }),
    fc.record({ kind: fc.constant('release' as const), index: fc.nat({ max: 40 }) }),
  );

  test('never more uploads or bytes than the limits (one body alone excepted); refusals change nothing; releases count once', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(step, { maxLength: 60 }),
        (maxUploads, maxBytes, steps) => {
          const gate = createUploadGate({ maxUploads, maxBytes });
          const admitted: { release: () => void; bytes: number; live: boolean }[] = [];
          for (const next of steps) {
            const before = gate.inFlight();
            if (next.kind === 'enter') {
              const release = gate.enter(next.bytes);
              const fits = before.uploads === 0 || (before.uploads < maxUploads && before.bytes + next.bytes <= maxBytes);
              expect(release !== null).toBe(fits);
              if (release) admitted.push({ release, bytes: next.bytes, live: true });
              else expect(gate.inFlight()).toEqual(before);
            } else if (admitted.length) {
              const entry = admitted[next.index % admitted.length]!;
              entry.release();
              entry.live = false;
            }
            const live = admitted.filter((entry) => entry.live);
            expect(gate.inFlight()).toEqual({ uploads: live.length, bytes: live.reduce((sum, entry) => sum + entry.bytes, 0) });
            const now = gate.inFlight();
            if (now.uploads > 1) {
              expect(now.uploads).toBeLessThanOrEqual(maxUploads);
              expect(now.bytes).toBeLessThanOrEqual(maxBytes);
            }
          }
          for (const entry of admitted) entry.release();
          expect(gate.inFlight()).toEqual({ uploads: 0, bytes: 0 });
        },
      ),
    );
  });

  test('a body is counted at its declared length, else at the most it may be; declared over the limit is none of the gate’s business', () => {
    expect(reservedBytes('1200', 5000)).toBe(1200);
    expect(reservedBytes('5000', 5000)).toBe(5000);
    expect(reservedBytes('5001', 5000)).toBeNull();
    expect(reservedBytes(undefined, 5000)).toBe(5000);
    expect(reservedBytes('', 5000)).toBe(5000);
    expect(reservedBytes('abc', 5000)).toBe(5000);
    expect(reservedBytes(['10', '10'], 5000)).toBe(10);
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 1e9 }), (header, limit) => {
        const reserved = reservedBytes(header, limit);
        return reserved === null ? Number(header) > limit : reserved >= 0 && reserved <= limit;
      }),
    );
  });
});

describe('abandoned scratch directories', () => {
  const NOW = 1_800_000_000_000;
  const self: Owner = { host: 'web-1', pid: 4242, instance: 'aaaaaaaaaaaaaaaa' };
  const around = (extra: Partial<Surroundings> = {}): Surroundings => ({
    self,
    liveHere: new Set([self.instance]),
    processExists: (pid) => pid === 4242 || pid === 77,
    now: NOW,
    ...extra,
  });
  const fresh = NOW - 1_000;

  test('names round-trip; anything else is no owner', () => {
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 1, max: 4_000_000 }), fc.stringMatching(/^[0-9a-f]{16}$/), (host, pid, instance) => {
        const owner = { host: hostLabel(host), pid, instance };
        expect(parseOwnerDirName(ownerDirName(owner))).toEqual(owner);
      }),
    );
    for (const name of ['', 'x', 'a~b~c', 'web-1~0~aaaaaaaa', 'web-1~12~XYZ', '..~1~aaaaaaaa~x', 'web 1~1~aaaaaaaa']) {
      expect(parseOwnerDirName(name)).toBeNull();
    }
  });

  test('this instance is never abandoned while it runs', () => {
    expect(isAbandoned(ownerDirName(self), fresh, around())).toBe(false);
    expect(isAbandoned(ownerDirName(self), NOW - 10 * OWNER_STALE_MS, around())).toBe(false);
  });

  test('a predecessor with the same pid (a restarted container), or a stopped instance of this process, is abandoned', () => {
    expect(isAbandoned(ownerDirName({ ...self, instance: 'bbbbbbbbbbbbbbbb' }), fresh, around())).toBe(true);
    // At start, before this instance counts as running, its own name (same pid, same instance) is not live either.
    expect(isAbandoned(ownerDirName(self), fresh, around({ liveHere: new Set() }))).toBe(true);
    // Another instance running in this very process (tests boot more than one) is left alone.
    expect(
      isAbandoned(
        ownerDirName({ ...self, instance: 'cccccccccccccccc' }),
        fresh,
        around({ liveHere: new Set([self.instance, 'cccccccccccccccc']) }),
      ),
    ).toBe(false);
  });

  test('another process of this host: abandoned once it no longer exists', () => {
    expect(isAbandoned(ownerDirName({ host: 'web-1', pid: 77, instance: 'dddddddddddddddd' }), fresh, around())).toBe(false);
    expect(isAbandoned(ownerDirName({ host: 'web-1', pid: 78, instance: 'dddddddddddddddd' }), fresh, around())).toBe(true);
  });

  test('another host, or a name that is no owner’s: abandoned once untouched for longer than the bound', () => {
    for (const name of [ownerDirName({ host: 'web-2', pid: 78, instance: 'dddddddddddddddd' }), 'stray']) {
      expect(isAbandoned(name, NOW - OWNER_STALE_MS, around())).toBe(false);
      expect(isAbandoned(name, NOW - OWNER_STALE_MS - 1, around())).toBe(true);
    }
    // A pid reused by an unrelated process: it exists, but its directory went untouched.
    expect(isAbandoned(ownerDirName({ host: 'web-1', pid: 77, instance: 'dddddddddddddddd' }), NOW - OWNER_STALE_MS - 1, around())).toBe(
      true,
    );
  });
});

describe('notes of files about to be written', () => {
  test('a note round-trips', () => {
    const intent = { hash: 'CV_Ada_Lovelace_3f2a1b9c0d', ext: '.pdf', mime: 'application/pdf' };
    expect(parseIntent(serializeIntent(intent))).toEqual(intent);
  });

  test('a note cut short, or one naming a path out of the upload folder, is never acted on', () => {
    const whole = serializeIntent({ hash: 'CV_x_0123456789', ext: '.docx', mime: 'application/pdf' });
    for (let cut = 0; cut < whole.length; cut += 1) expect(parseIntent(whole.slice(0, cut))).toBeNull();
    for (const hash of ['../etc/passwd', 'a/b', 'a\\b', '', 'x'.repeat(256)]) {
      expect(parseIntent(JSON.stringify({ hash, ext: '.pdf', mime: 'application/pdf' }))).toBeNull();
    }
    for (const ext of ['pdf', '.p/f', '', '.'.repeat(3)]) {
      expect(parseIntent(JSON.stringify({ hash: 'CV_x', ext, mime: 'application/pdf' }))).toBeNull();
    }
    fc.assert(
      fc.property(fc.string(), (text) => {
        const intent = parseIntent(text);
        return intent === null || (!intent.hash.includes('/') && !intent.hash.includes('\\') && /^\.[A-Za-z0-9]+$/.test(intent.ext));
      }),
    );
  });
});
