import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api/client";
import type { components } from "../api/schema";
import { duration, when, words } from "../format";
import { Empty, Show } from "../states";
import { ListTable } from "../table";
import { useApi } from "../use-api";

type Call = components["schemas"]["Call"];
type CallDetail = components["schemas"]["CallDetail"];

const PAGE_SIZE = 25;

const caller = (call: Call) => call.contact?.name ?? call.from_number ?? "unknown caller";

export function CallsPage() {
  const [page, setPage] = useState(1);
  const [open, setOpen] = useState<Call | null>(null);
  const [loaded, reload] = useApi(
    () => api.GET("/api/calls", { params: { query: { page, page_size: PAGE_SIZE } } }),
    [page],
  );
  return (
    <>
      {open ? <CallView call={open} onClose={() => setOpen(null)} /> : null}
      <section aria-labelledby="calls-title">
        <h2 id="calls-title">Calls</h2>
        <ListTable<Call>
          loaded={loaded}
          retry={reload}
          what="Calls"
          empty="No calls yet."
          rowKey={(c) => c.session_id}
          onPage={setPage}
          columns={[
            { header: "When", cell: (c) => when(c.occurred_at) },
            { header: "Caller", cell: caller },
            { header: "Channel", cell: (c) => `${c.channel}${c.direction ? `, ${c.direction}` : ""}` },
            { header: "Length", cell: (c) => duration(c.duration_seconds) },
            { header: "Outcome", cell: (c) => words(c.outcome ?? c.disposition) },
            {
              header: "Details",
              cell: (c) => (
                <button type="button" onClick={() => setOpen(c)} aria-label={`Open the call of ${caller(c)}`}>
                  Open{c.has_transcription ? " · transcript" : ""}
                  {c.has_recording ? " · recording" : ""}
                </button>
              ),
            },
          ]}
        />
      </section>
    </>
  );
}

function CallView({ call, onClose }: { call: Call; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const [loaded, reload] = useApi(
    () => api.GET("/api/calls/{session_id}", { params: { path: { session_id: call.session_id } } }),
    [call.session_id],
  );
  useEffect(() => heading.current?.focus(), [call.session_id]);
  return (
    <section class="panel" aria-labelledby="call-title">
      <h2 id="call-title" ref={heading} tabIndex={-1}>
        Call of {caller(call)}, {when(call.occurred_at)}
      </h2>
      <button type="button" onClick={onClose}>
        Close call
      </button>
      <Show
        loaded={loaded}
        what="the call"
        retry={reload}
        ready={(detail) => (
          <>
            <p>
              {words(detail.channel)} · {duration(detail.duration_seconds)} · {words(detail.outcome)}
            </p>
            {detail.has_recording ? <Recording sessionId={detail.session_id} /> : <p class="muted">No recording.</p>}
            <h3>Transcript</h3>
            <Transcript transcription={detail.transcription} />
          </>
        )}
      />
    </section>
  );
}

function Recording({ sessionId }: { sessionId: string }) {
  // The URL is signed on every read and expires: it is asked for when the call is opened.
  const [loaded, reload] = useApi(
    () => api.GET("/api/calls/{session_id}/recording", { params: { path: { session_id: sessionId } } }),
    [sessionId],
  );
  return (
    <Show
      loaded={loaded}
      what="the recording"
      retry={reload}
      ready={(recording) => (
        <figure class="recording">
          <figcaption id="recording-label">Recording</figcaption>
          {/* biome-ignore lint/a11y/useMediaCaption: the transcript below is the call's text */}
          <audio controls preload="none" src={recording.url} aria-labelledby="recording-label" />
        </figure>
      )}
    />
  );
}

type Turn = { role?: string; text?: string; start_seconds?: number };

function Transcript({ transcription }: { transcription: CallDetail["transcription"] }) {
  if (typeof transcription === "string" && transcription.trim()) return <p class="transcript">{transcription}</p>;
  if (Array.isArray(transcription) && transcription.length > 0)
    return (
      <ol class="transcript">
        {(transcription as Turn[]).map((turn, index) => (
          <li key={index}>
            <strong>{turn.role ?? "speaker"}</strong>
            {turn.start_seconds !== undefined ? <span class="muted"> ({duration(turn.start_seconds)})</span> : null}:{" "}
            {turn.text ?? ""}
          </li>
        ))}
      </ol>
    );
  return <Empty>No transcript for this call.</Empty>;
}
