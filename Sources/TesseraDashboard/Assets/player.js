// The job page's player for a streaming package: reads the package's HLS playlists (master.m3u8, then each
// media playlist) from the coordinator and plays the chosen rendition through Media Source Extensions,
// appending its init segment and media segments, and the audio's alongside. Choosing another rendition
// takes effect at the next segment boundary: its init segment, then its segments from there on, in the same
// SourceBuffer, so what is buffered stays one range. No player library; state for tests in window.tesseraPlayer.
"use strict";(function(){
const video=document.getElementById("player"),choice=document.getElementById("rendition"),note=document.getElementById("player-note");
if(!video||!window.MediaSource)return;
const base=video.dataset.base;
const state=window.tesseraPlayer={ready:false,error:null,appended:[],switches:[],renditions:[]};
const get=async(u,as)=>{const r=await fetch(base+u,{credentials:"same-origin"});
if(!r.ok)throw new Error(u+": HTTP "+r.status);return as==="text"?r.text():r.arrayBuffer()};
const attrs=l=>{const o={};for(const m of l.slice(l.indexOf(":")+1).matchAll(/([A-Z0-9-]+)=("[^"]*"|[^,]*)/g))o[m[1]]=m[2].replace(/^"|"$/g,"");return o};
const dir=u=>u.includes("/")?u.slice(0,u.lastIndexOf("/")+1):"";
async function playlist(uri){const lines=(await get(uri,"text")).split("\n").map(s=>s.trim());const d=dir(uri);
let init=null;const segs=[];for(const l of lines){if(l.startsWith("#EXT-X-MAP:"))init=d+attrs(l).URI;
else if(l&&!l.startsWith("#"))segs.push(d+l)}return{init,segs}}
const append=(sb,data)=>new Promise((ok,fail)=>{sb.addEventListener("updateend",ok,{once:true});
sb.addEventListener("error",()=>fail(new Error("append failed")),{once:true});sb.appendBuffer(data)});
async function main(){const lines=(await get("master.m3u8","text")).split("\n").map(s=>s.trim());let audio=null;
for(let i=0;i<lines.length;i++){const l=lines[i];
if(l.startsWith("#EXT-X-STREAM-INF:")){const a=attrs(l);state.renditions.push({uri:lines[i+1],codecs:a.CODECS.split(","),resolution:a.RESOLUTION,bandwidth:Number(a.BANDWIDTH)})}
else if(l.startsWith("#EXT-X-MEDIA:")&&!audio){const a=attrs(l);if(a.TYPE==="AUDIO"&&a.URI)audio=a.URI}}
if(!state.renditions.length)throw new Error("the package lists no rendition");
// A rendition whose codec this browser's MSE cannot take (HEVC in many builds) is listed, named and not
// chosen; playback starts with the first one it can.
for(const[i,r]of state.renditions.entries()){r.playable=MediaSource.isTypeSupported('video/mp4; codecs="'+r.codecs[0]+'"');
const o=document.createElement("option");o.value=String(i);o.disabled=!r.playable;
o.textContent=r.resolution+", "+Math.round(r.bandwidth/1000)+" kb/s"+(r.playable?"":" ("+r.codecs[0]+": not playable in this browser)");choice.append(o)}
const playable=state.renditions.findIndex(r=>r.playable);
if(playable<0)throw new Error("no rendition plays in this browser ("+state.renditions.map(r=>r.codecs[0]).join(", ")+")");
choice.value=String(playable);
const tracks=await Promise.all(state.renditions.map(r=>playlist(r.uri)));const sound=audio?await playlist(audio):null;
const ms=new MediaSource();video.src=URL.createObjectURL(ms);
await new Promise(ok=>ms.addEventListener("sourceopen",ok,{once:true}));
let current=Number(choice.value||0),loaded=-1;const first=state.renditions[current];
const vb=ms.addSourceBuffer('video/mp4; codecs="'+first.codecs[0]+'"');
const ab=sound&&first.codecs[1]?ms.addSourceBuffer('audio/mp4; codecs="'+first.codecs[1]+'"'):null;
if(ab)await append(ab,await get(sound.init));
state.ready=true;
for(let k=0;k<tracks[current].segs.length;k++){const want=Number(choice.value);
if(want!==loaded){const r=state.renditions[want];if(loaded>=0){state.switches.push({segment:k,to:want});
if(vb.changeType)vb.changeType('video/mp4; codecs="'+r.codecs[0]+'"')}
await append(vb,await get(tracks[want].init));loaded=want}
await append(vb,await get(tracks[loaded].segs[k]));
if(ab&&k<sound.segs.length)await append(ab,await get(sound.segs[k]));
state.appended.push({segment:k,rendition:loaded})}
if(ab)for(let k=tracks[loaded].segs.length;k<sound.segs.length;k++)await append(ab,await get(sound.segs[k]));
ms.endOfStream();state.done=true}
main().catch(e=>{state.error=String(e);if(note)note.textContent="Playback failed: "+e.message});
})();
