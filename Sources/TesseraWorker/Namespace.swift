/// ZeroMQ worker loop: see Worker.swift.
enum TesseraWorkerNamespace {}
