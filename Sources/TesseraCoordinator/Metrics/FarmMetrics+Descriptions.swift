extension FarmMetrics {
    /// Every metric the coordinator exports (besides the process's own, `ProcessMetrics`): its help text
    /// and, for histograms, its buckets. Deploy/README.md lists them for operators.
    static let descriptions: [String: DescribedMetricsFactory.Description] = [
        // What the farm is doing now (set at each scrape).
        "tessera_queue_depth": .init(help: "Segments waiting for a worker, over all running jobs."),
        "tessera_segments_running": .init(help: "Segments being transcoded by a worker now."),
        "tessera_workers": .init(help: "Workers connected to the coordinator."),
        "tessera_workers_busy": .init(help: "Workers holding at least one task."),
        "tessera_jobs": .init(help: "Jobs by state."),
        // Since the coordinator started.
        "tessera_segments_completed_total": .init(help: "Segments finished since the coordinator started."),
        "tessera_frames_encoded_total": .init(
            help: "Output frames of finished segments, each segment counted once however often it was delivered."),
        "tessera_frames_discarded_total": .init(
            help: "Frames of segment results that were not used: another attempt's was (retry), the job had "
                + "ended (cancelled), or the same result came again (duplicate)."),
        "tessera_output_media_seconds_total": .init(help: "Seconds of output video in finished segments."),
        "tessera_output_bytes_total": .init(help: "Bytes of encoded video in finished segments."),
        "tessera_stitched_bytes_total": .init(help: "Bytes of segment results written into their jobs' outputs."),
        "tessera_stitch_seconds_total": .init(
            help:
                "Seconds spent reading segment results back from the spool and writing them into their jobs' outputs (not waiting for them)."
        ),
        "tessera_jobs_submitted_total": .init(help: "Jobs accepted by the API."),
        "tessera_jobs_finished_total": .init(help: "Jobs that ended, by final state."),
        "tessera_segment_failures_total": .init(
            help: "Failed segment attempts (each one retried, or failing its job at the last attempt), by cause."),
        "tessera_tasks_sent_total": .init(
            help:
                "Tasks sent to workers, by transport: with their source packets, or by reference to workers that read the source."
        ),
        "tessera_task_bytes_sent_total": .init(help: "Bytes of the task messages sent to workers, by transport."),
        "tessera_inbound_result_bytes": .init(
            help:
                "Bytes of results granted room and not yet acknowledged, every worker together (at most --inbound-budget-mb)."
        ),
        "tessera_result_offers_waiting": .init(
            help: "Results offered by workers and waiting for room in the inbound budget."),
        "tessera_result_checks_total": .init(
            help:
                "Workers' results checked on the coordinator before they count: passed, refused or unchecked (it could not check)."
        ),
        "tessera_result_check_cpu_seconds_total": .init(
            help: "CPU seconds the coordinator spent checking workers' results (one check per core at a time)."),
        "tessera_result_checks_waiting": .init(
            help:
                "Workers' results waiting for their check (queued or being checked): above the cores for long, the checks bound the farm."
        ),
        "tessera_backup_attempts_total": .init(
            help: "Backup attempts of segments out at slow workers: started, won (taken first) or wasted."),
        "tessera_last_segment_completed_timestamp_seconds": .init(
            help: "Unix time at which a segment last finished; 0 until one does."),
        "tessera_segment_encode_duration_seconds": .init(
            help: "Seconds a worker took to transcode a finished segment, by frame processor.",
            buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300]),
        "tessera_segment_queue_wait_seconds": .init(
            help: "Seconds a segment waited for a worker before it was leased.",
            buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600]),
        "tessera_segment_realtime_ratio": .init(
            help: "Seconds of output per second of encoding, per finished segment (above 1: faster than real time).",
            buckets: [0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32]),
        "tessera_segment_ssim": .init(
            help: "Mean SSIM of each finished segment against the frames its encoder was given, by job kind.",
            buckets: [0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999]),
        "tessera_segment_psnr_db": .init(
            help: "PSNR (dB) of each finished segment against the frames its encoder was given, by job kind.",
            buckets: [25, 30, 35, 38, 40, 42, 45, 50, 60]),
        "tessera_build_info": .init(help: "Always 1; the labels say which build is running."),
        // Per connected worker, removed when it leaves or is lost.
        "tessera_worker_frames_encoded_total": .init(
            help: "Output frames of finished segments this worker encoded (its result was the one used)."),
        "tessera_worker_busy_seconds_total": .init(help: "Seconds this worker held at least one task."),
        "tessera_worker_slots": .init(help: "Tasks this worker may hold at once."),
        "tessera_worker_last_heartbeat_timestamp_seconds": .init(
            help: "Unix time of the last message from this worker."),
        "tessera_worker_info": .init(help: "Always 1; the labels describe the worker."),
        // The HTTP API (HTTPMetricsMiddleware), by route pattern, never the raw path.
        "tessera_media_bytes_served_total": .init(
            help:
                "Bytes of sources sent over HTTP to workers that read their tasks' packets themselves (GET /v1/media)."),
        "tessera_http_requests_total": .init(
            help: "HTTP requests answered, by route pattern, method and status class."),
        "tessera_http_request_duration_seconds": .init(
            help:
                "Seconds from an HTTP request's arrival to the end of its response body, by route pattern and method.",
            buckets: [0.005, 0.025, 0.1, 0.5, 2.5, 60]),
    ]
}
