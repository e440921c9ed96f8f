/** A self-contained page that renders the OpenAPI document (no external scripts). */
export function docsPage(specUrl: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:1000px;padding:1rem 2rem;color:#1b1b1b}
h1{margin-bottom:0}h2{border-bottom:1px solid #ddd;margin-top:2rem;text-transform:capitalize}
details{border:1px solid #e3e3e3;border-radius:6px;margin:.4rem 0;padding:.3rem .7rem}
summary{cursor:pointer}code{background:#f4f4f4;padding:0 .25rem;border-radius:3px}
.verb{display:inline-block;width:4.5rem;font-weight:700;text-transform:uppercase}
.get{color:#0a6ebd}.post{color:#178a2d}.put{color:#b57600}.delete{color:#c0292b}.patch{color:#7a3db8}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #e3e3e3;padding:.2rem .5rem;text-align:left;vertical-align:top}
pre{background:#f7f7f7;padding:.5rem;overflow:auto;max-height:20rem}
</style></head>
<body><h1 id="title">API reference</h1><p id="info"></p><div id="ops">Loading…</div>
<script>
fetch(${JSON.stringify(specUrl)}).then(r=>r.json()).then(spec=>{
  const esc=s=>String(s).replace(/[&<>"]/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[c]));
  document.getElementById("title").textContent=spec.info.title+" "+spec.info.version;
  document.getElementById("info").textContent=spec.info.description||"";
  const groups={};
  for(const [path,ops] of Object.entries(spec.paths)) for(const [verb,op] of Object.entries(ops)){
    const tag=(op.tags||["other"])[0];(groups[tag]=groups[tag]||[]).push({path,verb,op});
  }
  const resolve=s=>s&&s.$ref?spec.components.schemas[s.$ref.split("/").pop()]:s;
  const html=[];
  for(const [tag,ops] of Object.entries(groups)){
    html.push("<h2>"+esc(tag)+"</h2>");
    for(const {path,verb,op} of ops){
      html.push('<details><summary><span class="verb '+verb+'">'+verb+"</span><code>"+esc(path)+"</code> "+esc(op.summary||"")+"</summary>");
      if(op.parameters&&op.parameters.length){
        html.push("<table><tr><th>parameter</th><th>in</th><th>schema</th></tr>");
        for(const p of op.parameters) html.push("<tr><td>"+esc(p.name)+(p.required?" *":"")+"</td><td>"+p.in+"</td><td><code>"+esc(JSON.stringify(p.schema))+"</code></td></tr>");
        html.push("</table>");
      }
      if(op.description) html.push("<p>"+esc(op.description)+"</p>");
      const content=op.requestBody?op.requestBody.content:{};
      const json=content["application/json"];
      if(json) html.push("<p>Body:</p><pre>"+esc(JSON.stringify(resolve(json.schema),null,2))+"</pre>");
      const others=Object.keys(content).filter(t=>t!=="application/json");
      if(others.length) html.push("<p>Or a file: "+others.map(esc).join(", ")+"</p>");
      html.push("<p>Responses:</p><table>");
      for(const [status,r] of Object.entries(op.responses)){
        const resp=r.$ref?spec.components.responses[r.$ref.split("/").pop()]:r;
        const media=resp.content&&resp.content["application/json"];
        html.push("<tr><td>"+esc(status)+"</td><td>"+esc(resp.description||"")+(media&&media.example!==undefined?"<pre>"+esc(JSON.stringify(media.example,null,2))+"</pre>":"")+"</td></tr>");
      }
      html.push("</table></details>");
    }
  }
  document.getElementById("ops").innerHTML=html.join("");
});
</script></body></html>`;
}
