/// The page's style and script (`Assets/dashboard.css`, `Assets/dashboard.js`), compiled into the binary
/// by SwiftPM (no outside network, no resource bundle, a few kilobytes in all) and inlined in the page
/// under its CSP nonce. The script swaps in the sections the server renders and sends (see its header).
enum DashboardAssets {
    static let style = String(decoding: PackageResources.dashboard_css, as: UTF8.self)
    static let script = String(decoding: PackageResources.dashboard_js, as: UTF8.self)
    /// The job page's player for a streaming package (`Assets/player.js`).
    static let player = String(decoding: PackageResources.player_js, as: UTF8.self)
}
