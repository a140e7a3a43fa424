import CVulkan
import Foundation
import TesseraAV

/// One Vulkan instance, the physical device chosen for compute, its logical device and compute queue,
/// and the kernels' pipelines (built once, through an on-disk pipeline cache).
///
/// Chosen device: discrete GPU, then integrated, then virtual, then CPU (lavapipe); among equals the
/// first enumerated. `TESSERA_VULKAN_DEVICE` (an index or part of a name) overrides the choice.
/// One device is shared by every processor in the process (`shared()`); processors keep it alive.
final class VulkanDevice: @unchecked Sendable {
    let instance: VkInstance
    let physicalDevice: VkPhysicalDevice
    let device: VkDevice
    let queue: VkQueue
    let queueFamily: UInt32
    let name: String
    let deviceType: VkPhysicalDeviceType
    let limits: VkPhysicalDeviceLimits
    let memory: VkPhysicalDeviceMemoryProperties
    let pipelineCache: VkPipelineCache?
    /// On a CPU device with VK_EXT_external_memory_host: the alignment host memory must have to be read
    /// in place (source frames then need no copy). Nil elsewhere: on a GPU a copy is the faster way in.
    let hostImportAlignment: Int?
    /// Whether shaders may use 64-bit integers (enabled when the device has them). The per-plane kernels
    /// store 64 bits at a time, so they need them; without, jobs take the generic kernels.
    let hasInt64: Bool
    private let hostPointerProperties: PFN_vkGetMemoryHostPointerPropertiesEXT?
    /// vkQueueSubmit needs the queue externally synchronised; processors on different threads share it.
    private let queueLock = NSLock()
    /// The two resampling passes share one descriptor layout: 0 source (texel view), 1 intermediate
    /// (storage, written), 2 parameters (uniform), 3 output (storage), 4 intermediate (texel view, read),
    /// 5 horizontal filter tables (texel view).
    let verticalPass: ComputeKernel
    let horizontalPass: ComputeKernel
    /// The per-plane fast path (`PlaneResampling`): one set layout for both, push constants per plane.
    /// Nil on a device without 64-bit integers (see `hasInt64`).
    let planeKernels: (vertical: ComputeKernel, horizontal: ComputeKernel)?

    /// A human-readable type: "discrete GPU", "CPU", …
    var typeName: String {
        switch deviceType {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: "discrete GPU"
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: "integrated GPU"
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: "virtual GPU"
        case VK_PHYSICAL_DEVICE_TYPE_CPU: "CPU"
        default: "other"
        }
    }

    nonisolated(unsafe) private static var sharedResult: Result<VulkanDevice, MediaError>?
    private static let sharedLock = NSLock()

    /// The process-wide device, created on first use; the same error again if creation failed.
    ///
    /// - Throws: `MediaError.unsupported` when there is no Vulkan loader, driver or compute-capable
    ///   device; `.ffmpeg` when creation fails otherwise.
    static func shared() throws(MediaError) -> VulkanDevice {
        sharedLock.lock()
        defer { sharedLock.unlock() }
        if let sharedResult { return try sharedResult.get() }
        let result: Result<VulkanDevice, MediaError>
        do throws(MediaError) { result = .success(try VulkanDevice()) } catch { result = .failure(error) }
        sharedResult = result
        return try result.get()
    }

    private init() throws(MediaError) {
        var instance: VkInstance?
        let appName = strdup("tessera")
        defer { free(appName) }
        var app = VkApplicationInfo()
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO
        app.pApplicationName = UnsafePointer(appName)
        app.pEngineName = UnsafePointer(appName)
        app.apiVersion = tessera_VK_MAKE_API_VERSION(0, 1, 1, 0)
        try withUnsafePointer(to: &app) { (appPointer) throws(MediaError) in
            var info = VkInstanceCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO
            info.pApplicationInfo = appPointer
            try vk(vkCreateInstance(&info, nil, &instance), "create a Vulkan instance")
        }
        guard let instance else { throw MediaError(.unsupported, "Vulkan: no instance") }
        self.instance = instance

        var count: UInt32 = 0
        do throws(MediaError) {
            try vk(vkEnumeratePhysicalDevices(instance, &count, nil), "list Vulkan devices")
            var devices = [VkPhysicalDevice?](repeating: nil, count: Int(count))
            try vk(vkEnumeratePhysicalDevices(instance, &count, &devices), "list Vulkan devices")
            let candidates = devices.compactMap { $0 }.compactMap { Self.describe($0) }
            guard let chosen = Self.choose(candidates) else {
                throw MediaError(.unsupported, "Vulkan: no device with a compute queue")
            }
            physicalDevice = chosen.device
            queueFamily = chosen.queueFamily
            name = chosen.name
            deviceType = chosen.properties.deviceType
            limits = chosen.properties.limits
            var memory = VkPhysicalDeviceMemoryProperties()
            vkGetPhysicalDeviceMemoryProperties(chosen.device, &memory)
            self.memory = memory

            let importExtension = "VK_EXT_external_memory_host"
            let importsHost =
                chosen.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU
                && Self.extensions(of: chosen.device).contains(importExtension)
            hostImportAlignment = importsHost ? Self.hostPointerAlignment(chosen.device) : nil
            let extensionName = strdup(importExtension)
            defer { free(extensionName) }
            var extensionNames: [UnsafePointer<CChar>?] = importsHost ? [UnsafePointer(extensionName)] : []

            var available = VkPhysicalDeviceFeatures()
            vkGetPhysicalDeviceFeatures(chosen.device, &available)
            let supports64 = available.shaderInt64 == VkBool32(VK_TRUE)
            hasInt64 = supports64

            var priority: Float = 1
            var device: VkDevice?
            try withUnsafePointer(to: &priority) { (p) throws(MediaError) in
                var queueInfo = VkDeviceQueueCreateInfo()
                queueInfo.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO
                queueInfo.queueFamilyIndex = chosen.queueFamily
                queueInfo.queueCount = 1
                queueInfo.pQueuePriorities = p
                try withUnsafePointer(to: &queueInfo) { (q) throws(MediaError) in
                    var info = VkDeviceCreateInfo()
                    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO
                    info.queueCreateInfoCount = 1
                    info.pQueueCreateInfos = q
                    var features = VkPhysicalDeviceFeatures()
                    features.shaderInt64 = VkBool32(supports64 ? VK_TRUE : VK_FALSE)
                    let result = extensionNames.withUnsafeMutableBufferPointer { names in
                        info.enabledExtensionCount = UInt32(names.count)
                        info.ppEnabledExtensionNames = names.isEmpty ? nil : UnsafePointer(names.baseAddress)
                        return withUnsafePointer(to: &features) { f in
                            info.pEnabledFeatures = f
                            return vkCreateDevice(chosen.device, &info, nil, &device)
                        }
                    }
                    try vk(result, "create a device on \(chosen.name)")
                }
            }
            guard let device else { throw MediaError(.device, "Vulkan: no device") }
            self.device = device
            hostPointerProperties =
                importsHost
                ? unsafeBitCast(
                    vkGetDeviceProcAddr(device, "vkGetMemoryHostPointerPropertiesEXT"),
                    to: PFN_vkGetMemoryHostPointerPropertiesEXT?.self)
                : nil
        } catch {
            vkDestroyInstance(instance, nil)
            throw error
        }
        var queue: VkQueue?
        vkGetDeviceQueue(device, queueFamily, 0, &queue)
        guard let queue else {
            vkDestroyDevice(device, nil)
            vkDestroyInstance(instance, nil)
            throw MediaError(.device, "Vulkan: \(name) has no queue in family \(queueFamily)")
        }
        self.queue = queue
        let cacheURL = Self.pipelineCacheURL(physicalDevice)
        let cache = Self.loadPipelineCache(device, from: cacheURL)
        pipelineCache = cache
        var built: [ComputeKernel] = []
        do throws(MediaError) {
            let storage = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uniform = VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER
            let texels = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
            let resampling = [texels, storage, uniform, storage, texels, texels]
            built.append(
                try ComputeKernel(
                    device: device, bindings: resampling, pushConstantBytes: 0,
                    code: ShaderCode.verticalPass, cache: cache))
            built.append(
                try ComputeKernel(
                    device: device, bindings: resampling, pushConstantBytes: 0,
                    code: ShaderCode.horizontalPass, cache: cache))
            let planes = [texels, storage, texels, storage, texels, texels]
            for code in hasInt64 ? [ShaderCode.planeVertical, ShaderCode.planeHorizontal] : [] {
                built.append(
                    try ComputeKernel(
                        device: device, bindings: planes,
                        pushConstantBytes: PlaneResampling.pushConstantBytes, code: code,
                        cache: cache))
            }
        } catch {
            for kernel in built { kernel.destroy() }
            vkDestroyPipelineCache(device, cache, nil)
            vkDestroyDevice(device, nil)
            vkDestroyInstance(instance, nil)
            throw error
        }
        verticalPass = built[0]
        horizontalPass = built[1]
        planeKernels = hasInt64 ? (built[2], built[3]) : nil
        Self.savePipelineCache(device, cache, to: cacheURL)
    }

    deinit {
        vkDeviceWaitIdle(device)
        for kernel in kernels { kernel.destroy() }
        vkDestroyPipelineCache(device, pipelineCache, nil)
        vkDestroyDevice(device, nil)
        vkDestroyInstance(instance, nil)
    }

    struct Candidate {
        var device: VkPhysicalDevice
        var properties: VkPhysicalDeviceProperties
        var queueFamily: UInt32
        var name: String
        var index: Int
    }

    private static func describe(_ device: VkPhysicalDevice) -> Candidate? {
        var properties = VkPhysicalDeviceProperties()
        vkGetPhysicalDeviceProperties(device, &properties)
        let name = withUnsafeBytes(of: properties.deviceName) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        var count: UInt32 = 0
        vkGetPhysicalDeviceQueueFamilyProperties(device, &count, nil)
        var families = [VkQueueFamilyProperties](repeating: .init(), count: Int(count))
        vkGetPhysicalDeviceQueueFamilyProperties(device, &count, &families)
        // Prefer a compute-only family (async compute on GPUs), else any with compute.
        let compute = VK_QUEUE_COMPUTE_BIT.rawValue, graphics = VK_QUEUE_GRAPHICS_BIT.rawValue
        let family =
            families.indices.first { families[$0].queueFlags & compute != 0 && families[$0].queueFlags & graphics == 0 }
            ?? families.indices.first { families[$0].queueFlags & compute != 0 }
        guard let family else { return nil }
        return Candidate(device: device, properties: properties, queueFamily: UInt32(family), name: name, index: 0)
    }

    private static func extensions(of device: VkPhysicalDevice) -> Set<String> {
        var count: UInt32 = 0
        guard vkEnumerateDeviceExtensionProperties(device, nil, &count, nil) == VK_SUCCESS else { return [] }
        var properties = [VkExtensionProperties](repeating: .init(), count: Int(count))
        guard vkEnumerateDeviceExtensionProperties(device, nil, &count, &properties) == VK_SUCCESS else { return [] }
        return Set(
            properties.map { p in
                withUnsafeBytes(of: p.extensionName) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            })
    }

    private static func hostPointerAlignment(_ device: VkPhysicalDevice) -> Int {
        var host = VkPhysicalDeviceExternalMemoryHostPropertiesEXT()
        host.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT
        var properties = VkPhysicalDeviceProperties2()
        properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2
        withUnsafeMutablePointer(to: &host) { h in
            properties.pNext = UnsafeMutableRawPointer(h)
            vkGetPhysicalDeviceProperties2(device, &properties)
        }
        return max(Int(host.minImportedHostPointerAlignment), 1)
    }

    /// The memory types that can hold host memory at `pointer` (VK_EXT_external_memory_host); 0 when none.
    func hostPointerMemoryTypes(_ pointer: UnsafeMutableRawPointer) -> UInt32 {
        guard let hostPointerProperties else { return 0 }
        var properties = VkMemoryHostPointerPropertiesEXT()
        properties.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT
        let result = hostPointerProperties(
            device, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, pointer,
            &properties)
        return result == VK_SUCCESS ? properties.memoryTypeBits : 0
    }

    private static func rank(_ type: VkPhysicalDeviceType) -> Int {
        switch type {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: 0
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: 1
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: 2
        case VK_PHYSICAL_DEVICE_TYPE_CPU: 3
        default: 4
        }
    }

    private static func choose(_ candidates: [Candidate]) -> Candidate? {
        if let wanted = ProcessInfo.processInfo.environment["TESSERA_VULKAN_DEVICE"], !wanted.isEmpty {
            if let i = Int(wanted), candidates.indices.contains(i) { return candidates[i] }
            if let match = candidates.first(where: { $0.name.localizedCaseInsensitiveContains(wanted) }) {
                return match
            }
        }
        return candidates.enumerated().min { a, b in
            (rank(a.element.properties.deviceType), a.offset) < (rank(b.element.properties.deviceType), b.offset)
        }?.element
    }

    // MARK: Memory

    /// The first memory type allowed by `typeBits` that has `required` flags, preferring one that also has
    /// `preferred`.
    func memoryType(bits typeBits: UInt32, required: UInt32, preferred: UInt32 = 0) -> UInt32? {
        let types = withUnsafeBytes(of: memory.memoryTypes) { Array($0.bindMemory(to: VkMemoryType.self)) }
        let allowed = (0..<Int(memory.memoryTypeCount)).filter { typeBits & (1 << $0) != 0 }
        let fits = allowed.filter { types[$0].propertyFlags & required == required }
        let best = fits.first { types[$0].propertyFlags & preferred == preferred } ?? fits.first
        return best.map { UInt32($0) }
    }

    func memoryFlags(_ type: UInt32) -> UInt32 {
        withUnsafeBytes(of: memory.memoryTypes) { $0.bindMemory(to: VkMemoryType.self)[Int(type)].propertyFlags }
    }

    /// True when buffers the CPU can map are not the device's fast memory (discrete GPUs without
    /// resizable BAR): then frames go through host staging buffers and a copy on the GPU.
    var prefersStaging: Bool {
        let types = withUnsafeBytes(of: memory.memoryTypes) { Array($0.bindMemory(to: VkMemoryType.self)) }
        let local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue
        let visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue
        let hasLocal = types.prefix(Int(memory.memoryTypeCount)).contains { $0.propertyFlags & local != 0 }
        let hasLocalVisible = types.prefix(Int(memory.memoryTypeCount)).contains {
            $0.propertyFlags & (local | visible) == local | visible
        }
        return hasLocal && !hasLocalVisible
    }

    // MARK: Submission

    /// Submits one pre-recorded command buffer, signalling `fence` when it completes.
    func submit(_ commandBuffer: VkCommandBuffer?, fence: VkFence?) throws(MediaError) {
        var buffer = commandBuffer
        var info = VkSubmitInfo()
        info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO
        info.commandBufferCount = 1
        let result = withUnsafePointer(to: &buffer) { p -> VkResult in
            info.pCommandBuffers = p
            queueLock.lock()
            defer { queueLock.unlock() }
            return vkQueueSubmit(queue, 1, &info, fence)
        }
        try vk(result, "submit work to \(name)")
    }

    /// Blocks the calling thread until `fence` signals. Call from a dedicated thread, never from Swift's
    /// cooperative pool.
    func wait(_ fence: VkFence?) throws(MediaError) {
        var f = fence
        try vk(vkWaitForFences(device, 1, &f, VK_TRUE, UInt64.max), "wait for \(name)")
    }

    // MARK: Pipeline cache

    private var savedPipelineCount = 0

    private var kernels: [ComputeKernel] {
        [verticalPass, horizontalPass] + (planeKernels.map { [$0.vertical, $0.horizontal] } ?? [])
    }

    /// Writes the pipeline cache back when new pipelines were built (specialisations are made on demand).
    func savePipelineCache() {
        let built = kernels.reduce(0) { $0 + $1.builtCount }
        queueLock.lock()
        let changed = built != savedPipelineCount
        savedPipelineCount = built
        queueLock.unlock()
        if changed { Self.savePipelineCache(device, pipelineCache, to: Self.pipelineCacheURL(physicalDevice)) }
    }

    /// `$XDG_CACHE_HOME/tessera` or `~/.cache/tessera`, one file per device and driver.
    private static func pipelineCacheURL(_ physicalDevice: VkPhysicalDevice) -> URL? {
        let env = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = env["XDG_CACHE_HOME"], !xdg.isEmpty {
            base = URL(fileURLWithPath: xdg)
        } else if let home = env["HOME"], !home.isEmpty {
            base = URL(fileURLWithPath: home).appendingPathComponent(".cache")
        } else {
            return nil
        }
        var properties = VkPhysicalDeviceProperties()
        vkGetPhysicalDeviceProperties(physicalDevice, &properties)
        let key = String(format: "%04x-%04x-%08x", properties.vendorID, properties.deviceID, properties.driverVersion)
        return base.appendingPathComponent("tessera").appendingPathComponent("vulkan-pipelines-\(key).bin")
    }

    /// The driver checks the data's header itself and starts empty when it does not match.
    private static func loadPipelineCache(_ device: VkDevice, from url: URL?) -> VkPipelineCache? {
        let data = url.flatMap { try? Data(contentsOf: $0) } ?? Data()
        var cache: VkPipelineCache?
        data.withUnsafeBytes { raw in
            var info = VkPipelineCacheCreateInfo()
            info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO
            info.initialDataSize = raw.count
            info.pInitialData = raw.baseAddress
            if vkCreatePipelineCache(device, &info, nil, &cache) != VK_SUCCESS {
                info.initialDataSize = 0
                info.pInitialData = nil
                _ = vkCreatePipelineCache(device, &info, nil, &cache)
            }
        }
        return cache
    }

    /// Best effort: a cache that cannot be written only costs start-up time.
    private static func savePipelineCache(_ device: VkDevice, _ pipelineCache: VkPipelineCache?, to url: URL?) {
        guard let pipelineCache, let url else { return }
        var size = 0
        guard vkGetPipelineCacheData(device, pipelineCache, &size, nil) == VK_SUCCESS, size > 0 else { return }
        var data = Data(count: size)
        let ok = data.withUnsafeMutableBytes { vkGetPipelineCacheData(device, pipelineCache, &size, $0.baseAddress) }
        guard ok == VK_SUCCESS else { return }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.prefix(size).write(to: url, options: .atomic)
    }
}
