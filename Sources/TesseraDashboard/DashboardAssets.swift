/// The page's style and script, inside the binary (no outside network, a few kilobytes in all). The
/// script redraws the server-rendered sections from `/v1/events`, marks the page stale when the stream
/// goes quiet, reconnects by itself, and asks before draining, pausing or resuming a worker. Between
/// messages (up to a second apart) it applies the coordinator's liveness rule to each worker's last
/// heartbeat, so a dead worker reads "lost" as soon as the window closes; only while the stream is fresh,
/// so a stalled stream shows as stale, never as every worker lost.
enum DashboardAssets {
    /// Colours keep at least 4.5:1 contrast; every state also has its word and a glyph.
    static let style = """
        :root{font-family:system-ui,sans-serif;color:#1b1b1b;background:#fff;line-height:1.4}
        body{margin:0 auto;max-width:1280px;padding:0 .75rem}
        h1{font-size:1.4rem;margin:.5rem 0}h2{font-size:1.1rem;margin:1rem 0 .4rem}
        .skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.3rem}
        .scroll{overflow-x:auto;max-width:100%}.scroll:focus,button:focus,a:focus{outline:3px solid #0b57d0}
        table{border-collapse:collapse;width:100%;font-size:.9rem}
        th,td{border-bottom:1px solid #999;padding:.3rem .4rem;text-align:left;vertical-align:top}
        .badge{display:inline-block;padding:0 .4rem;border:1px solid #333;border-radius:.3rem;font-weight:600}
        .w-busy,.j-running{background:#d7f0dc}.w-idle,.j-queued{background:#eee}
        .w-draining,.w-paused,.w-quarantined{background:#fdf0c4}.w-lost,.j-failed{background:#fbd9d9}
        .j-completed{background:#d6e6fb}.j-cancelled{background:#eee}
        .w-lost::before,.j-failed::before{content:"✗ "}.w-busy::before{content:"▶ "}
        .stale{background:#8a1c1c;color:#fff;padding:.4rem;font-weight:700}
        button{font:inherit;padding:.25rem .6rem;margin:.1rem;border:1px solid #333;border-radius:.3rem;
        background:#f4f4f4;color:#1b1b1b;min-height:2.75rem;min-width:2.75rem}
        button[aria-pressed=true]{background:#1b1b1b;color:#fff}
        .controls{white-space:nowrap}.figures{font-size:1.2rem;font-weight:600}
        .cells{list-style:none;display:flex;flex-wrap:wrap;gap:2px;padding:0;margin:.2rem 0}
        .cells li{width:1.15rem;height:1.15rem;line-height:1.15rem;text-align:center;font-size:.75rem;border:1px solid #333}
        .key{border:1px solid #333;padding:0 .3rem}.notable{font-size:.85rem;margin:.2rem 0 .8rem}
        .segments{list-style:none;display:flex;flex-wrap:wrap;gap:.4rem;padding:0}.seg{border:1px solid #333;
        padding:.2rem .4rem;font-size:.85rem;width:11rem}.seg img{display:block}
        .d{background:#d7f0dc}.r{background:#fdf0c4}.f{background:#fbd9d9}.t{background:#d6e6fb;border-style:dashed!important}.q{background:#fff}
        .sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
        .signin{max-width:22rem;margin:3rem auto}.signin input{display:block;width:100%;margin:.3rem 0 .8rem;
        font:inherit;padding:.4rem}.error{color:#8a1c1c;font-weight:600}
        svg{width:100%;height:80px;border:1px solid #999}
        @media (max-width:600px){body{padding:0 .4rem}th,td{padding:.25rem}table{font-size:.8rem}}
        """

    static let script = """
        "use strict";(function(){
        const $=s=>document.querySelector(s);
        const page=Number(document.body.dataset.page||"1");
        let st=null,paused=false,dirty=false,last=Date.now(),stale=false,es=null,retry=null,gone="";
        const e=s=>String(s??"").replace(/[&<>"']/g,c=>({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"})[c]);
        const n=x=>Number(x||0).toFixed(1),cap=s=>s[0].toUpperCase()+s.slice(1);
        const clock=t=>new Date(t).toISOString().slice(11,19)+" UTC";
        function d(s){return s>=90?Math.round(s/60)+" min":Math.round(s)+" s"}
        function silent(w){const age=(Date.now()-last)/1000,win=st&&st.livenessSeconds;
        return !!win&&!stale&&age<=1.5&&w.state!=="lost"&&w.lastSeenSeconds+age>win}
        function wrow(w){const id=e(w.id),t=w.job?e(w.job)+" / "+(w.segment??"?"):"—";
        if(silent(w))w=Object.assign({},w,{state:"lost"});
        const c=w.state==="lost"?"—":["drain","pause","resume"].map(a=>'<button type="button" data-act="'+a+'" data-id="'+id+'" aria-label="'+cap(a)+" worker "+id+'">'+cap(a)+"</button>").join(" ");
        return '<tr data-worker="'+id+'"><th scope="row">'+id+'</th><td class="state"><span class="badge w-'+e(w.state)+'">'+e(w.state)+"</span></td><td>"+t+"</td><td>"+n(w.framesPerSecond)+"</td><td>"+(w.lastSeenSeconds>0?n(w.lastSeenSeconds)+" s ago":"now")+"</td><td>"+w.frames+"</td><td>"+e(w.host)+"</td><td>"+e(w.backend)+'</td><td class="controls">'+c+"</td></tr>"}
        function jrow(j){const id=e(j.id),p=j.framesTotal>0?j.framesDone*100/j.framesTotal:0;
        const eta=j.etaLow==null?"—":(j.etaLow===j.etaHigh?d(j.etaLow):d(j.etaLow)+"–"+d(j.etaHigh));
        return '<tr data-job="'+id+'" data-frames-done="'+j.framesDone+'" data-frames-total="'+j.framesTotal+'"><th scope="row"><a href="/jobs/'+encodeURIComponent(j.id)+'">'+id+'</a></th><td><span class="badge j-'+e(j.state)+'">'+e(j.state)+'</span></td><td><progress max="'+Math.max(1,j.framesTotal)+'" value="'+j.framesDone+'" aria-label="Progress of job '+id+'"></progress> <span class="frames">'+j.framesDone+" / "+j.framesTotal+'</span> (<span class="pct">'+p.toFixed(1)+"</span> %)</td><td>"+eta+"</td><td>"+n(j.framesPerSecond)+"</td><td>"+e(j.source)+"</td></tr>"}
        const L={q:"·",r:"▶",d:"✓",f:"✗",t:"↻"},W={q:"queued",r:"running",d:"done",f:"failed",t:"retried"};
        function map(m){const job=e(m.job),c={},cells=[];for(const x of m.cells){c[x]=(c[x]||0)+1;cells.push('<li class="'+x+'">'+(L[x]||"?")+"</li>")}
        const note=["r","t","f"].map(k=>{const l=[];for(let i=0;i<m.cells.length;i++)if(m.cells[i]===k)l.push(i+(m.by[i]>=0?" on "+e(m.workers[m.by[i]]):""));
        return l.length?cap(W[k])+": "+l.slice(0,20).join(", ")+(l.length>20?" and "+(l.length-20)+" more":""):""}).filter(Boolean).join(". ");
        return '<figure class="map" data-job="'+job+'"><figcaption><a href="/jobs/'+encodeURIComponent(m.job)+'">Job '+job+"</a>: "+"qrdft".split("").filter(k=>c[k]).map(k=>c[k]+" "+W[k]).join(", ")+'</figcaption><ol class="cells" aria-hidden="true">'+cells.join("")+'</ol><p class="notable">'+(note||"Nothing running, retried or failed.")+"</p></figure>"}
        document.addEventListener("mouseover",ev=>{const li=ev.target.closest(".cells li");if(!li||!st)return;const f=li.closest("figure"),m=st.maps.find(x=>x.job===f.dataset.job);if(!m)return;
        const i=Array.prototype.indexOf.call(li.parentNode.children,li),w=m.by[i]>=0?" on "+m.workers[m.by[i]]:"";li.title="segment "+i+": "+W[m.cells[i]]+w});
        function chart(t){const p=t.points||[];if(p.length<2)return"";const t0=p[0][0],t1=p[p.length-1][0]||t0+1,m=Math.max(1,...p.map(x=>x[1]));
        return '<svg viewBox="0 0 600 80" preserveAspectRatio="none" role="img" aria-label="Frames per second over the last '+Math.round((t1-t0)/60)+' min, peak '+n(m)+'"><polyline fill="none" stroke="#0b57d0" stroke-width="2" points="'+p.map(x=>(600*(x[0]-t0)/Math.max(1,t1-t0)).toFixed(1)+","+(78-76*x[1]/m).toFixed(1)).join(" ")+'"/></svg>'}
        function render(k){if(!st)return;const has=x=>!k||k.includes(x);
        if(has("throughput"))$("#throughput").innerHTML='<p class="figures"><span id="fps">'+n(st.throughput.framesPerSecond)+'</span> frames/s · <span id="rt">'+Number(st.throughput.realtime||0).toFixed(2)+"</span>× real time</p>"+chart(st.throughput);
        if(has("workers")){$("#workers").innerHTML=st.workers.map(wrow).join("");gone=silentIds()}
        if(page===1&&has("jobs"))$("#jobs").innerHTML=st.jobs.map(jrow).join("");
        if(has("maps"))$("#maps").innerHTML=st.maps.map(map).join("");
        if(has("errors"))$("#errors").innerHTML=st.errors.length?st.errors.slice().reverse().map(x=>"<li><strong>job "+e(x.job)+(x.segment!=null?", segment "+x.segment:"")+"</strong>: "+e(x.message)+"</li>").join(""):"<li>None.</li>";
        $("#conn").textContent=(paused?"Paused; ":"Live; ")+"updated "+clock(st.at*1000)}
        function apply(m,full){if(full)st=m;else Object.assign(st||{},m);if(paused){dirty=true;return}render(full?null:Object.keys(m))}
        function alive(){last=Date.now();if(stale){stale=false;$("#stale").hidden=true}}
        function markStale(){if(stale)return;stale=true;const b=$("#stale");b.textContent="Stale since "+clock(last)+": the coordinator is not answering; reconnecting…";b.hidden=false}
        function connect(){if(es)es.close();es=new EventSource("/v1/events");
        es.addEventListener("snapshot",x=>{alive();apply(JSON.parse(x.data),true)});
        es.addEventListener("update",x=>{alive();apply(JSON.parse(x.data),false)});
        es.addEventListener("heartbeat",alive);
        es.onerror=()=>{markStale();if(es.readyState===2&&!retry)retry=setTimeout(()=>{retry=null;connect()},1000)}}
        function silentIds(){return st?JSON.stringify(st.workers.filter(silent).map(w=>w.id)):""}
        setInterval(()=>{if(Date.now()-last>2500){markStale();if(Date.now()-last>4000&&!retry){last=Date.now()-2600;connect()}}
        if(st&&!paused&&silentIds()!==gone)render(["workers"])},250);
        $("#pause").addEventListener("click",ev=>{paused=!paused;ev.target.setAttribute("aria-pressed",String(paused));ev.target.textContent=paused?"Resume live updates":"Pause live updates";if(!paused&&dirty){dirty=false;render()}});
        document.addEventListener("click",async ev=>{const b=ev.target.closest("button[data-act]");if(!b)return;const a=b.dataset.act,id=b.dataset.id;
        if(!window.confirm(cap(a)+" worker "+id+"?"))return;
        const r=await fetch("/v1/workers/"+encodeURIComponent(id)+"/"+a,{method:"POST",credentials:"same-origin"});
        $("#notice").textContent=r.ok?"Worker "+id+": "+a+" sent.":"Worker "+id+": "+a+" failed ("+r.status+").";});
        connect()})();
        """
}
