// Admission under load, the operator's setting SVC_GATE_REFUSE_WHEN_SATURATED (outside v1, off by
// default; app/gate/admission-load.e2e.test.ts checks the default): while the people already
// typing wait longer than the target for their keys, no new editor is admitted below the cap (spec
// counting rule 6 decides what a new editor gets, and every figure it reports is the cap), and
// everything rule 6 keeps working still works.

import { describe, expect, test } from "bun:test";
import { ManualClock } from "../clock";
import { Admission } from "./admission";
import { ConnectionCounter, SAMPLE_INTERVAL_MS, type SampleDoc } from "./counting";
import { EditorLoad, MIN_SAMPLES, QUIET_AFTER_MS, SATURATED_P95_MS, parseInputLagReply } from "./editor-load";
import { InputLagMeter, isTyping } from "../edsrv/input-lag";

const src = (n: number) => `http://files.example:8080/wopi/files/${n}`;
const ws = (n: number, token = `tok${n}`, extra = "") =>
  `/ed/${encodeURIComponent(`${src(n)}?access_token=${token}&access_token_ttl=0${extra}`)}/ws?WOPISrc=${encodeURIComponent(src(n))}&compat=/ws`;
const doc = (n: number, edit: string[]): SampleDoc => ({ docKey: src(n), editSessions: edit, readonly: 0 });

function setup(limit = 20) {
  const clock = new ManualClock();
  const counter = new ConnectionCounter({ clock, limit: () => limit });
  const load = new EditorLoad();
  const downgraded: { limit: number; current: number; edition: string }[] = [];
  const admission = new Admission({
    counter,
    clock,
    edition: () => "enterprise",
    wopiAllowedHosts: [],
    saturation: (now) => load.saturated(now),
    ownDocument: (docKey) => docKey === src(9),
    embeddedSession: () => "edit",
    downgradeEmbedded: (_d, _t, l) => downgraded.push(l),
  });
  counter.applySample([doc(1, ["a", "b", "c"])]);
  return { clock, counter, load, admission, downgraded };
}

const busy = { p95Ms: SATURATED_P95_MS + 30, samples: MIN_SAMPLES + 10, lastMsAgo: 40 };

describe("admission under load", () => {
  test("rule 6 under load: a saturated editing server admits no new editor below the cap; one through a file-sync host gets the limit page naming the cap", async () => {
    const { clock, load, admission } = setup();
    expect(await admission.decide("ws", ws(2))).toMatchObject({ admit: true, reason: "under_cap" });
    load.record(busy, clock.now());
    expect(await admission.decide("ws", ws(3))).toEqual({ admit: false, reason: "limit", limit: 20, current: 4, edition: "enterprise" });
  });

  test("rule 6 under load: a new embedded session asking to edit opens read-only with limited", async () => {
    const { clock, load, admission, downgraded } = setup();
    load.record(busy, clock.now());
    expect(await admission.decide("ws", ws(9, "embed-token"))).toMatchObject({ admit: true, reason: "readonly" });
    expect(downgraded).toEqual([{ limit: 20, current: 3, edition: "enterprise" }]);
  });

  test("rule 6 under load: reconnects, read-only sessions and the document's grace slots are still admitted", async () => {
    const { clock, counter, load, admission } = setup();
    expect(await admission.decide("ws", ws(1, "a"))).toMatchObject({ admit: true });
    load.record(busy, clock.now());
    expect(await admission.decide("ws", ws(1, "a"))).toMatchObject({ admit: true, reason: "reconnect" });
    expect(await admission.decide("ws", ws(4, "viewer", "&permission=readonly"))).toMatchObject({ admit: true, reason: "readonly" });
    counter.applySample([doc(1, ["b", "c"])]); // one editor left document 1: its slot is kept for a while
    expect(await admission.decide("ws", ws(1, "back"))).toMatchObject({ admit: true, reason: "grace" });
  });

  test("not saturated: a high p95 over too few waits, a low p95, typing that had stopped when the reading was taken, or a reading a sample period old", async () => {
    const { clock, load, admission } = setup();
    load.record({ p95Ms: 400, samples: MIN_SAMPLES - 1, lastMsAgo: 10 }, clock.now());
    expect(await admission.decide("ws", ws(2))).toMatchObject({ admit: true, reason: "under_cap" });
    load.record({ p95Ms: SATURATED_P95_MS, samples: 500, lastMsAgo: 10 }, clock.now());
    expect(await admission.decide("ws", ws(3))).toMatchObject({ admit: true, reason: "under_cap" });
    // Everyone left: the waits are still in the editing server's window, but nobody types.
    load.record({ ...busy, lastMsAgo: QUIET_AFTER_MS + 1 }, clock.now());
    expect(await admission.decide("ws", ws(4))).toMatchObject({ admit: true, reason: "under_cap" });
    load.record({ ...busy, lastMsAgo: null }, clock.now());
    expect(load.saturated(clock.now())).toBeNull();
    load.record(busy, clock.now());
    expect(load.saturated(clock.now())).not.toBeNull();
    clock.advance(SAMPLE_INTERVAL_MS);
    expect(load.saturated(clock.now())).toBeNull();
  });

  test("the sampler's reply parses, and anything else is no reading (a Collabora server does not answer)", () => {
    expect(parseInputLagReply('svc_input_lag {"p95Ms":12.5,"samples":40,"windowMs":5000,"lastMsAgo":12}')).toEqual({ p95Ms: 12.5, samples: 40, lastMsAgo: 12 });
    expect(parseInputLagReply('svc_input_lag {"p95Ms":0,"samples":0,"windowMs":5000,"lastMsAgo":null}')).toEqual({ p95Ms: 0, samples: 0, lastMsAgo: null });
    for (const bad of ["svc_input_lag", "svc_input_lag {", 'svc_input_lag {"p95Ms":-1,"samples":3}', 'svc_input_lag {"p95Ms":1,"samples":1.5}', 'svc_input_lag {"p95Ms":1,"samples":1,"lastMsAgo":-4}', "documents {}"]) expect(parseInputLagReply(bad)).toBeNull();
  });
});

describe("the editing server's input lag", () => {
  test("a wait runs from a page's first unanswered key or text to its next caret frame; its p95 covers the last 5 s", () => {
    let now = 0;
    const meter = new InputLagMeter(() => now);
    const page = {};
    for (let i = 0; i < 100; i++) {
      meter.typed(page);
      now += 2;
      meter.typed(page); // a second key before the answer: the wait is the first one's
      now += i < 95 ? 8 : 98;
      meter.answered(page);
      meter.answered(page); // a caret frame with nothing waiting adds nothing
    }
    expect(meter.summary()).toEqual({ p95Ms: 10, samples: 100, windowMs: 5_000, lastMsAgo: 0 });
    now += 5_001;
    expect(meter.summary()).toMatchObject({ p95Ms: 0, samples: 0, lastMsAgo: null });
  });

  test("typing is a key press or committed text; releases, compositions and other frames are not", () => {
    expect(["key type=input char=97 key=0", "textinput id=0 text=a", "textinput id=0 text=b end=1"].every(isTyping)).toBe(true);
    expect(["key type=up char=97 key=0", "textinput id=0 text=xin end=0", "mouse type=buttondown x=1 y=1", "tile nviewid=0"].some(isTyping)).toBe(false);
  });
});
