"""Reads a streaming package the way players' tooling does (Python's m3u8 and mpegdash parsers) and
prints what it found as JSON, for the Swift tests to assert on: usage `package_check.py DIR`."""
import json
import os
import sys

import m3u8
import mpegdash.parser


def hls(folder):
    master = m3u8.load(os.path.join(folder, "master.m3u8"))
    out = {"variants": [], "media": [], "iframes": []}
    for p in master.playlists:
        s = p.stream_info
        media = m3u8.load(os.path.join(folder, p.uri))
        out["variants"].append({
            "uri": p.uri, "bandwidth": s.bandwidth, "averageBandwidth": s.average_bandwidth,
            "codecs": s.codecs, "resolution": list(s.resolution or []), "frameRate": s.frame_rate,
            "audio": s.audio, "version": media.version, "targetDuration": media.target_duration,
            "playlistType": media.playlist_type, "endlist": media.is_endlist,
            "independent": media.is_independent_segments,
            "map": media.segment_map[0].uri if media.segment_map else None,
            "durations": [seg.duration for seg in media.segments],
            "segments": [seg.uri for seg in media.segments],
        })
    for m in master.media:
        media = m3u8.load(os.path.join(folder, m.uri))
        out["media"].append({
            "type": m.type, "language": m.language, "groupId": m.group_id, "channels": m.channels,
            "uri": m.uri, "targetDuration": media.target_duration,
            "durations": [seg.duration for seg in media.segments],
        })
    for p in master.iframe_playlists:
        media = m3u8.load(os.path.join(folder, p.uri))
        out["iframes"].append({
            "uri": p.uri, "bandwidth": p.iframe_stream_info.bandwidth, "iFramesOnly": media.is_i_frames_only,
            "byteRanges": [seg.byterange for seg in media.segments],
        })
    return out


def dash(folder):
    mpd = mpegdash.parser.MPEGDASHParser.parse(os.path.join(folder, "manifest.mpd"))
    out = {"type": mpd.type, "duration": mpd.media_presentation_duration, "sets": []}
    for period in mpd.periods:
        for a in period.adaptation_sets:
            reps = []
            for r in a.representations:
                if not r.segment_templates:
                    # A side-loaded file (WebVTT subtitles): its BaseURL.
                    reps.append({"id": r.id, "bandwidth": r.bandwidth,
                                 "baseURLs": [b.base_url_value for b in (r.base_urls or [])]})
                    continue
                t = r.segment_templates[0]
                timeline = []
                for s in t.segment_timelines[0].Ss:
                    timeline += [s.d] * (1 + (s.r or 0))
                reps.append({
                    "id": r.id, "bandwidth": r.bandwidth, "codecs": r.codecs, "width": r.width,
                    "height": r.height, "timescale": t.timescale, "init": t.initialization, "media": t.media,
                    "startNumber": t.start_number, "durations": timeline,
                })
            out["sets"].append({"contentType": a.content_type, "mimeType": a.mime_type, "lang": a.lang,
                                "representations": reps})
    return out


if __name__ == "__main__":
    folder = sys.argv[1]
    print(json.dumps({"hls": hls(folder), "dash": dash(folder)}))
