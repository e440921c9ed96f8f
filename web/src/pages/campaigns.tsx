import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { components } from "../api/schema";
import { when, words } from "../format";
import { ListTable } from "../table";
import { useApi } from "../use-api";

type Campaign = components["schemas"]["Campaign"];

const PAGE_SIZE = 25;

/** Contacts whose calling is over: called, failed, skipped (do-not-call) or cancelled. */
const done = ({ counts }: Campaign) => counts.completed + counts.failed + counts.skipped_dnc + counts.cancelled;

function Progress({ campaign }: { campaign: Campaign }) {
  const { total } = campaign.counts;
  const finished = done(campaign);
  const percent = total === 0 ? 0 : Math.round((finished / total) * 100);
  return (
    <div class="progress">
      <progress max={Math.max(total, 1)} value={finished} aria-label={`Progress of ${campaign.name}`} />
      <span>
        {finished} of {total} contacts ({percent} %)
      </span>
    </div>
  );
}

export function CampaignsPage() {
  const [page, setPage] = useState(1);
  const [loaded, reload] = useApi(
    () => api.GET("/api/campaigns", { params: { query: { page, page_size: PAGE_SIZE } } }),
    [page],
  );
  return (
    <section aria-labelledby="campaigns-title">
      <h2 id="campaigns-title">Campaigns</h2>
      <ListTable<Campaign>
        loaded={loaded}
        retry={reload}
        what="Campaigns"
        empty="No campaigns yet."
        rowKey={(c) => c.id}
        onPage={setPage}
        columns={[
          { header: "Name", cell: (c) => c.name },
          { header: "Status", cell: (c) => words(c.status) },
          { header: "Progress", cell: (c) => <Progress campaign={c} /> },
          {
            header: "Calls",
            cell: ({ counts }) =>
              `${counts.completed} done, ${counts.failed} failed, ${counts.pending + counts.queued + counts.dialing} to go`,
          },
          { header: "Started", cell: (c) => when(c.started_at, "not yet") },
        ]}
      />
    </section>
  );
}
