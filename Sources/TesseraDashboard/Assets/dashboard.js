// The dashboard's script. The server renders every section (DashboardPage) and sends the ones that
// change on /v1/events; this swaps them in, marks the page stale when the stream goes quiet, reconnects
// by itself, and asks before draining, pausing or resuming a worker. Between messages (up to a second
// apart) it applies the coordinator's liveness rule to each worker row's last heartbeat, so a dead
// worker reads "lost" as soon as the window closes; only while the stream is fresh, so a stalled stream
// shows as stale, never as every worker lost.
"use strict";(function(){
const $=s=>document.querySelector(s);
const page=Number(document.body.dataset.page||"1");
let html=null,win=null,at=0,paused=false,dirty=false,last=Date.now(),stale=false,es=null,retry=null,gone="";
const cap=s=>s[0].toUpperCase()+s.slice(1);
const clock=t=>new Date(t).toISOString().slice(11,19)+" UTC";
const W={q:"queued",r:"running",d:"done",f:"failed",t:"retried",a:"racing",b:"backup"};
const rows=()=>Array.from(document.querySelectorAll("#workers tr[data-worker]"));
function silent(r){const age=(Date.now()-last)/1000;
return !!win&&!stale&&age<=1.5&&r.dataset.state!=="lost"&&Number(r.dataset.lastSeen)+age>win}
function silentIds(){return JSON.stringify(rows().filter(silent).map(r=>r.dataset.worker))}
function markLost(){for(const r of rows().filter(silent)){const b=r.querySelector(".state .badge");
b.className="badge w-lost";b.textContent="lost";r.querySelector(".controls").textContent="—"}}
function render(k){if(!html)return;const has=x=>!k||k.includes(x);
for(const name of ["throughput","workers","jobs","maps","errors"]){
if(!has(name)||html[name]==null||(name==="jobs"&&page!==1))continue;
$("#"+name).innerHTML=html[name];if(name==="workers"){markLost();gone=silentIds()}}
$("#conn").textContent=(paused?"Paused; ":"Live; ")+"updated "+clock(at*1000)}
function apply(m,full){if(full){html=m.sections;win=m.livenessSeconds??null}else Object.assign(html||{},m.sections);
at=m.at;if(paused){dirty=true;return}render(full?null:Object.keys(m.sections))}
document.addEventListener("mouseover",ev=>{const li=ev.target.closest(".cells li");if(!li)return;const f=li.closest("figure");
const i=Array.prototype.indexOf.call(li.parentNode.children,li),by=(f.dataset.by||"").split(","),
ws=JSON.parse(f.dataset.workers||"[]"),k=Number(by[i]);li.title="segment "+i+": "+(W[li.className]||"?")+(k>=0&&ws[k]!=null?" on "+ws[k]:"")});
function alive(){last=Date.now();if(stale){stale=false;$("#stale").hidden=true}}
function markStale(){if(stale)return;stale=true;const b=$("#stale");b.textContent="Stale since "+clock(last)+": the coordinator is not answering; reconnecting…";b.hidden=false}
function connect(){if(es)es.close();es=new EventSource("/v1/events");
es.addEventListener("snapshot",x=>{alive();apply(JSON.parse(x.data),true)});
es.addEventListener("update",x=>{alive();apply(JSON.parse(x.data),false)});
es.addEventListener("heartbeat",alive);
es.onerror=()=>{markStale();if(es.readyState===2&&!retry)retry=setTimeout(()=>{retry=null;connect()},1000)}}
setInterval(()=>{if(Date.now()-last>2500){markStale();if(Date.now()-last>4000&&!retry){last=Date.now()-2600;connect()}}
if(html&&!paused&&silentIds()!==gone)render(["workers"])},250);
$("#pause").addEventListener("click",ev=>{paused=!paused;ev.target.setAttribute("aria-pressed",String(paused));ev.target.textContent=paused?"Resume live updates":"Pause live updates";if(!paused&&dirty){dirty=false;render()}});
document.addEventListener("click",async ev=>{const b=ev.target.closest("button[data-act]");if(!b)return;const a=b.dataset.act,id=b.dataset.id;
if(!window.confirm(cap(a)+" worker "+id+"?"))return;
const r=await fetch("/v1/workers/"+encodeURIComponent(id)+"/"+a,{method:"POST",credentials:"same-origin"});
$("#notice").textContent=r.ok?"Worker "+id+": "+a+" sent.":"Worker "+id+": "+a+" failed ("+r.status+").";});
connect()})();
