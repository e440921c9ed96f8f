import { useEffect, useState } from "preact/hooks";
import { api, errorMessage } from "../api/client";
import type { components } from "../api/schema";
import { when } from "../format";
import { ListTable } from "../table";
import { useApi } from "../use-api";

type Source = components["schemas"]["KnowledgeSource"];

const PAGE_SIZE = 25;
/** How often the list is read again while a source is still being processed. */
const REFRESH_MS = 2000;

const size = (bytes: number | null) =>
  bytes === null ? "—" : bytes < 1024 ? `${bytes} B` : `${Math.round(bytes / 1024).toLocaleString()} KB`;

export function KnowledgeBasePage() {
  const [page, setPage] = useState(1);
  const [loaded, reload] = useApi(
    () => api.GET("/api/knowledge-base/sources", { params: { query: { page, page_size: PAGE_SIZE } } }),
    [page],
  );
  const processing = loaded.state === "ready" && loaded.data.items.some((s) => s.status === "processing");
  useEffect(() => {
    if (!processing) return;
    const timer = setTimeout(reload, REFRESH_MS);
    return () => clearTimeout(timer);
  }, [loaded]);
  return (
    <>
      <p>Documents the assistant answers from: text, Markdown, HTML, PDF or Word files.</p>
      <Upload onUploaded={reload} />
      <section aria-labelledby="sources-title">
        <h2 id="sources-title">Sources</h2>
        <ListTable<Source>
          loaded={loaded}
          retry={reload}
          what="Knowledge sources"
          empty="No sources yet: upload a document."
          rowKey={(s) => s.id}
          onPage={setPage}
          columns={[
            { header: "Title", cell: (s) => s.title ?? s.filename ?? s.url ?? "(untitled)" },
            { header: "Type", cell: (s) => s.type },
            {
              header: "Status",
              cell: (s) => (
                <span class={`status-${s.status}`}>
                  {s.status}
                  {s.error ? `: ${s.error}` : ""}
                </span>
              ),
            },
            { header: "Passages", cell: (s) => s.chunk_count },
            { header: "Size", cell: (s) => size(s.bytes) },
            { header: "Added", cell: (s) => when(s.created_at) },
          ]}
        />
      </section>
    </>
  );
}

function Upload({ onUploaded }: { onUploaded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [title, setTitle] = useState("");
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<{ error: boolean; text: string } | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    setMessage(null);
    const form = new FormData();
    form.append("file", file);
    if (title.trim()) form.append("title", title.trim());
    try {
      const { data, error, response } = await api.POST("/api/knowledge-base/sources/upload", {
        // The form is sent as it is (multipart/form-data with the browser's boundary).
        body: { file: "" },
        bodySerializer: () => form,
      });
      if (data) {
        setMessage({ error: false, text: `Uploaded ${data.filename ?? file.name}: ${data.status}.` });
        setTitle("");
        (event.target as HTMLFormElement).reset();
        setFile(null);
        onUploaded();
      } else setMessage({ error: true, text: errorMessage(error, response.status) });
    } catch {
      setMessage({ error: true, text: errorMessage(undefined) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a document</h2>
      <form class="inline" onSubmit={submit}>
        <div>
          <label for="kb-file">File</label>
          <input
            id="kb-file"
            type="file"
            required
            accept=".txt,.md,.markdown,.html,.htm,.pdf,.docx,text/plain,text/markdown,text/html,application/pdf"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </div>
        <div>
          <label for="kb-title">Title (optional)</label>
          <input id="kb-title" value={title} maxLength={200} onInput={(e) => setTitle(e.currentTarget.value)} />
        </div>
        <button type="submit" disabled={busy || !file}>
          Upload
        </button>
      </form>
      {message ? (
        <p class={message.error ? "error" : undefined} role={message.error ? "alert" : "status"}>
          {message.text}
        </p>
      ) : null}
    </section>
  );
}
