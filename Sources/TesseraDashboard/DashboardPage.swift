import Foundation
import TesseraCore
import TesseraHTTP

/// The page's HTML, rendered on the server, once: the first load and every section the event stream
/// sends come from `sections(_:)`, and the script only swaps them in (and applies the liveness rule). Every string from
/// outside (worker ids, host names, paths, errors) goes through `escape`.
enum DashboardPage {
    /// Inline style and script only with this request's nonce; nothing may be fetched from elsewhere.
    static func contentSecurityPolicy(nonce: String) -> String {
        "default-src 'none'; script-src 'nonce-\(nonce)'; style-src 'nonce-\(nonce)'; connect-src 'self'; "
            + "img-src 'self' data:; media-src blob:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in String(generator.next() as UInt64, radix: 36) }.joined()
    }

    static func escape(_ text: String) -> String { text.markupEscaped }

    private static func head(_ title: String, nonce: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title)</title>
        <link rel="icon" href="data:,">
        <style nonce="\(nonce)">\(DashboardAssets.style)</style>
        </head>
        """
    }

    /// A small form that sends the token in the body of `POST /v1/session`.
    static func signIn(failed: Bool, nonce: String) -> String {
        head("Tessera — sign in", nonce: nonce) + """
            <body><main class="signin"><h1>Tessera</h1>
            <form method="post" action="/v1/session">
            <label for="token">Coordinator token</label>
            <input id="token" name="token" type="password" autocomplete="current-password" required>
            <button type="submit">Sign in</button>
            </form>
            \(failed ? "<p class=\"error\" role=\"alert\">That token is not valid for this coordinator.</p>" : "")
            </main></body></html>
            """
    }

    static func render(
        _ s: DashboardSnapshot, page: Int, olderJobs: [DashboardSnapshot.Job]?, nonce: String
    ) -> String {
        let jobs = olderJobs ?? s.jobs
        return head("Tessera farm", nonce: nonce) + """
            <body data-page="\(page)">
            <a class="skip" href="#jobs-h">Skip to jobs</a>
            <header><h1>Tessera farm</h1>
            <p id="conn" role="status" aria-live="polite">Rendered at \(clock(s.at)); live updates start with the script.</p>
            <div id="stale" class="stale" role="alert" hidden></div>
            <button id="pause" type="button" aria-pressed="false">Pause live updates</button>
            <p id="notice" role="status" aria-live="polite"></p>
            </header>
            <main>
            <section aria-labelledby="tp-h"><h2 id="tp-h">Throughput</h2>
            <div id="throughput">\(throughput(s.throughput))</div></section>
            <section aria-labelledby="workers-h"><h2 id="workers-h">Workers</h2>
            <div class="scroll" tabindex="0" role="region" aria-labelledby="workers-h"><table>
            <thead><tr><th scope="col">Worker</th><th scope="col">State</th><th scope="col">Job / segment</th>
            <th scope="col">Frames/s</th><th scope="col">Last heartbeat</th><th scope="col">Frames</th>
            <th scope="col">Host</th><th scope="col">Backend</th><th scope="col">Controls</th></tr></thead>
            <tbody id="workers">\(workerRows(s.workers))</tbody></table></div></section>
            <section aria-labelledby="jobs-h"><h2 id="jobs-h" tabindex="-1">\(page > 1 ? "Older jobs, page \(page)" : "Jobs")</h2>
            <div class="scroll" tabindex="0" role="region" aria-labelledby="jobs-h"><table>
            <thead><tr><th scope="col">Job</th><th scope="col">State</th><th scope="col">Progress</th>
            <th scope="col">ETA</th><th scope="col">Frames/s</th><th scope="col">Source</th></tr></thead>
            <tbody id="jobs">\(jobRows(jobs))</tbody></table></div>
            <nav aria-label="Job history">\(page > 1 ? "<a href=\"/?page=\(page - 1)\">Newer jobs</a> " : "")<a href="/?page=\(page + 1)">Older jobs</a></nav>
            </section>
            <section aria-labelledby="maps-h"><h2 id="maps-h">Segment maps</h2>
            <p class="legend">Maps of the running jobs; each cell is a segment: \(legend). A job's own page
            has every segment's details and thumbnail.</p>
            <div id="maps">\(maps(s.maps))</div></section>
            <section aria-labelledby="errors-h"><h2 id="errors-h">Errors</h2>
            <ul id="errors">\(errors(s.errors))</ul></section>
            </main>
            <script nonce="\(nonce)">\(DashboardAssets.script)</script>
            </body></html>
            """
    }

    static func clock(_ unix: Double) -> String {
        let f = DateFormatter()
        f.dateFormat = "HH:mm:ss"
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date(timeIntervalSince1970: unix)) + " UTC"
    }

    static func number(_ x: Double) -> String { String(format: "%.1f", x) }

    /// Every section the page shows and the event stream sends, by the id of the element it fills, in
    /// the page's order: rendered here once, for the first load and for every update alike.
    static func sections(
        _ s: DashboardSnapshot, changedSince last: DashboardSnapshot? = nil
    ) -> [(
        name: String, html: String
    )] {
        var out: [(name: String, html: String)] = []
        if last?.throughput != s.throughput { out.append(("throughput", throughput(s.throughput))) }
        if last?.workers != s.workers { out.append(("workers", workerRows(s.workers))) }
        if last?.jobs != s.jobs { out.append(("jobs", jobRows(s.jobs))) }
        if last?.maps != s.maps { out.append(("maps", maps(s.maps))) }
        if last?.errors != s.errors { out.append(("errors", errors(s.errors))) }
        return out
    }

    /// The farm's rate now, its backup attempts (once there are any), and its last hour as a line (peak
    /// at the top).
    static func throughput(_ t: DashboardSnapshot.Throughput) -> String {
        let b = t.backups
        let backups =
            b.started == 0
            ? ""
            : " · <span id=\"backups\">backup attempts: \(b.started) started, \(b.won) won, \(b.wasted) wasted</span>"
        return "<p class=\"figures\"><span id=\"fps\">\(number(t.framesPerSecond))</span> frames/s · "
            + "<span id=\"rt\">\(String(format: "%.2f", t.realtime))</span>× real time\(backups)</p>" + chart(t.points)
    }

    /// `[unix seconds, frames/s, …]` points as an SVG line; nothing for fewer than two.
    static func chart(_ points: [[Double]]) -> String {
        let p = points.filter { $0.count >= 2 && $0[0].isFinite && $0[1].isFinite }
        guard p.count >= 2 else { return "" }
        let t0 = p[0][0]
        let t1 = p[p.count - 1][0] != 0 ? p[p.count - 1][0] : t0 + 1
        let peak = max(1, p.map { $0[1] }.max() ?? 1)
        let span = max(1, t1 - t0)
        let line = p.map {
            String(format: "%.1f,%.1f", 600 * ($0[0] - t0) / span, 78 - 76 * $0[1] / peak)
        }.joined(separator: " ")
        return "<svg viewBox=\"0 0 600 80\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"Frames per second "
            + "over the last \(Int(exactly: ((t1 - t0) / 60).rounded()) ?? 0) min, peak \(number(peak))\"><polyline fill=\"none\" "
            + "stroke=\"#0b57d0\" stroke-width=\"2\" points=\"\(line)\"/></svg>"
    }

    static func workerRows(_ workers: [DashboardSnapshot.Worker]) -> String { workers.map(workerRow).joined() }
    static func jobRows(_ jobs: [DashboardSnapshot.Job]) -> String { jobs.map(jobRow).joined() }
    static func maps(_ maps: [DashboardSnapshot.SegmentMap]) -> String { maps.map(map).joined() }

    static let glyphs: [SegmentStatus.State: String] = [
        .queued: "·", .running: "▶", .done: "✓", .failed: "✗", .retried: "↻", .racing: "⇉", .backup: "⇈",
    ]

    static var legend: String {
        SegmentStatus.State.allCases.map {
            "<span class=\"key \(DashboardSnapshot.SegmentMap.letters[$0]!)\">\(glyphs[$0]!) \($0.rawValue)</span>"
        }
        .joined(separator: " ")
    }

    static func workerRow(_ w: DashboardSnapshot.Worker) -> String {
        let id = escape(w.id)
        let task = w.job.map { "\(escape($0)) / \(w.segment.map(String.init) ?? "?")" } ?? "—"
        let controls =
            w.state == .lost
            ? "—"
            : WorkerControl.allCases.map {
                "<button type=\"button\" data-act=\"\($0.rawValue)\" data-id=\"\(id)\" "
                    + "aria-label=\"\($0.rawValue.capitalized) worker \(id)\">\($0.rawValue.capitalized)</button>"
            }.joined(separator: " ")
        // The script applies the liveness rule to the row's state and last heartbeat between messages.
        return "<tr data-worker=\"\(id)\" data-state=\"\(w.state.rawValue)\" "
            + "data-last-seen=\"\(w.lastSeenSeconds.isFinite ? w.lastSeenSeconds : 0)\"><th scope=\"row\">\(id)</th>"
            + "<td class=\"state\"><span class=\"badge w-\(w.state.rawValue)\">\(w.state.rawValue)</span></td>"
            + "<td>\(task)</td><td>\(number(w.framesPerSecond))</td><td>\(w.lastSeenSeconds > 0 ? "\(number(w.lastSeenSeconds)) s ago" : "now")</td>"
            + "<td>\(w.frames)</td><td>\(escape(w.host))</td><td>\(escape(w.backend))</td>"
            + "<td class=\"controls\">\(controls)</td></tr>"
    }

    static func eta(_ j: DashboardSnapshot.Job) -> String {
        guard let low = j.etaLow, let high = j.etaHigh else { return "—" }
        // An estimate from a crawling rate can be any size: past a day it says so, and never traps.
        func d(_ s: Double) -> String {
            guard s.isFinite, s < 86_400 else { return "over a day" }
            return s >= 90 ? "\(Int((s / 60).rounded())) min" : "\(Int(s)) s"
        }
        return low == high ? d(low) : "\(d(low))–\(d(high))"
    }

    static func jobRow(_ j: DashboardSnapshot.Job) -> String {
        let id = escape(j.id)
        let percent = j.framesTotal > 0 ? Double(j.framesDone) * 100 / Double(j.framesTotal) : 0
        return "<tr data-job=\"\(id)\" data-frames-done=\"\(j.framesDone)\" data-frames-total=\"\(j.framesTotal)\">"
            + "<th scope=\"row\"><a href=\"/jobs/\(escape(pathSegment(j.id)))\">\(id)</a></th>"
            + "<td><span class=\"badge j-\(j.state.rawValue)\">\(j.state.rawValue)</span>"
            + (j.waiting.map { " <span class=\"waiting\">waiting: \(escape($0))</span>" } ?? "") + "</td>"
            + "<td><progress max=\"\(max(1, j.framesTotal))\" value=\"\(j.framesDone)\" "
            + "aria-label=\"Progress of job \(id)\"></progress> <span class=\"frames\">\(j.framesDone) / \(j.framesTotal)"
            + "</span> (<span class=\"pct\">\(String(format: "%.1f", percent))</span> %)</td>"
            + "<td>\(eta(j))</td><td>\(number(j.framesPerSecond))</td><td>\(escape(j.source))</td></tr>"
    }

    /// A running job's map: a summary in words (what a screen reader reads), one small cell per segment
    /// (its state as a glyph and a colour), and the running, retried and failed segments with their
    /// workers in words. The script gives a cell its details when pointed at.
    static func map(_ m: DashboardSnapshot.SegmentMap) -> String {
        let job = escape(m.job)
        var cells = ""
        cells.reserveCapacity(m.cells.utf8.count * 18)
        for letter in m.cells { cells += "<li class=\"\(letter)\">\(glyph(letter))</li>" }
        // Each cell's worker, for the script's tooltip: an index into the escaped list of workers.
        let workers = escape(
            String(decoding: (try? JSONEncoder().encode(m.workers)) ?? Data("[]".utf8), as: UTF8.self))
        return "<figure class=\"map\" data-job=\"\(job)\" data-workers=\"\(workers)\" "
            + "data-by=\"\(m.by.map(String.init).joined(separator: ","))\"><figcaption><a href=\"/jobs/\(escape(pathSegment(m.job)))\">"
            + "Job \(job)</a>: \(summary(m))</figcaption><ol class=\"cells\" aria-hidden=\"true\">\(cells)</ol>"
            + "<p class=\"notable\">\(notable(m))</p></figure>"
    }

    static func glyph(_ letter: Character) -> String {
        guard let state = DashboardSnapshot.SegmentMap.letters.first(where: { $0.value == letter })?.key else {
            return "?"
        }
        return glyphs[state]!
    }

    /// "120 done, 2 running, 278 queued", in the legend's order.
    static func summary(_ m: DashboardSnapshot.SegmentMap) -> String {
        var counts: [Character: Int] = [:]
        for letter in m.cells { counts[letter, default: 0] += 1 }
        return SegmentStatus.State.allCases.compactMap { state in
            counts[DashboardSnapshot.SegmentMap.letters[state]!].map { "\($0) \(state.rawValue)" }
        }.joined(separator: ", ")
    }

    /// The segments worth naming, with their workers: running, retried and failed, 20 of each at most.
    static func notable(_ m: DashboardSnapshot.SegmentMap) -> String {
        let cells = Array(m.cells)
        let parts = [SegmentStatus.State.running, .racing, .retried, .backup, .failed].compactMap { state -> String? in
            let letter = DashboardSnapshot.SegmentMap.letters[state]!
            let named = cells.indices.filter { cells[$0] == letter }.map { i -> String in
                let w = i < m.by.count && m.by[i] >= 0 && m.by[i] < m.workers.count ? m.workers[m.by[i]] : nil
                return "\(i)" + (w.map { " on \(escape($0))" } ?? "")
            }
            guard !named.isEmpty else { return nil }
            return "\(state.rawValue.capitalized): \(named.prefix(20).joined(separator: ", "))"
                + (named.count > 20 ? " and \(named.count - 20) more" : "")
        }
        return parts.isEmpty ? "Nothing running, retried or failed." : parts.joined(separator: ". ")
    }

    /// A job's own page: its row, then every segment with its state, attempts, worker, encode time,
    /// errors and (once the job completed) its thumbnail.
    static func jobPage(
        _ j: DashboardSnapshot.Job, segments: [SegmentStatus], quality: QualityReport? = nil,
        package: PackageRequest? = nil, nonce: String
    ) -> String {
        let id = escape(j.id)
        let items = segments.map { s -> String in
            let worker = s.worker.map(escape) ?? "—"
            let errors = s.errors.isEmpty ? "" : "<ul>" + s.errors.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
            let thumb =
                j.state == .completed
                ? "<img src=\"/v1/jobs/\(escape(pathSegment(j.id)))/segments/\(s.index)/thumbnail.png\" "
                    + "alt=\"Segment \(s.index)'s first frame\" loading=\"lazy\" width=\"80\" height=\"45\">" : ""
            return
                "<li class=\"seg \(DashboardSnapshot.SegmentMap.letters[s.state]!)\" data-state=\"\(s.state.rawValue)\">"
                + "\(thumb)<span aria-hidden=\"true\">\(glyphs[s.state]!)</span> <strong>\(s.index)</strong> "
                + "\(s.state.rawValue), on \(worker), \(s.attempts) attempt\(s.attempts == 1 ? "" : "s")"
                + (s.encodeSeconds.map { String(format: ", %.1f s", $0) } ?? "")
                + (s.quality.map { q in
                    String(format: ", SSIM %.4f, PSNR %.2f dB, %.0f kb/s", q.ssim, q.psnr, q.bitRate / 1000)
                        + (q.crf.map { ", CRF \(QualityProbe.text($0))" } ?? "")
                } ?? "") + "\(errors)</li>"
        }
        let qualitySection =
            quality.map { q in
                "<h2>Quality</h2><p>\(escape(q.summary))</p><figure>\(QualityChart.svg(q))<figcaption>Bars: each "
                    + "segment's bit rate, as wide as it lasts. Line: its measured quality against the frames its "
                    + "encoder was given (hover for figures).</figcaption></figure>"
                    + QualityChart.map(segments)
            } ?? ""
        // A finished HLS package plays here, through Media Source Extensions (the page's own script).
        let playback =
            j.state == .completed && package?.formats.contains(.hls) == true
            ? "<h2>Playback</h2><p><label for=\"rendition\">Rendition</label> <select id=\"rendition\"></select> "
                + "<span id=\"player-note\">(a change takes effect at the next segment)</span></p>"
                + "<video id=\"player\" controls muted playsinline width=\"640\" "
                + "data-base=\"/v1/jobs/\(escape(pathSegment(j.id)))/package/\"></video>"
                + "<script nonce=\"\(nonce)\">\(DashboardAssets.player)</script>" : ""
        return head("Tessera job \(id)", nonce: nonce) + """
            <body><header><h1>Job \(id)</h1><p><a href="/">Back to the farm</a></p></header><main>
            <div class="scroll" tabindex="0" role="region" aria-label="Job \(id)"><table>
            <thead><tr><th scope="col">Job</th><th scope="col">State</th><th scope="col">Progress</th>
            <th scope="col">ETA</th><th scope="col">Frames/s</th><th scope="col">Source</th></tr></thead>
            <tbody>\(jobRow(j))</tbody></table></div>
            \(j.error.map { "<p class=\"error\">\(escape($0))</p>" } ?? "")
            \(j.waiting.map { "<p class=\"waiting\">Waiting: \(escape($0))</p>" } ?? "")
            \(playback)
            \(qualitySection)
            <h2>Segments</h2><p class="legend">\(legend)</p>
            <ol class="segments" aria-label="Segments of job \(id)">\(items.joined())</ol>
            </main></body></html>
            """
    }

    /// A job id as one URL path segment.
    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    static func errors(_ list: [DashboardSnapshot.Failure]) -> String {
        guard !list.isEmpty else { return "<li>None.</li>" }
        return list.reversed().map { e in
            "<li><strong>job \(escape(e.job))\(e.segment.map { ", segment \($0)" } ?? "")</strong>: "
                + "\(escape(e.message))</li>"
        }.joined()
    }
}
