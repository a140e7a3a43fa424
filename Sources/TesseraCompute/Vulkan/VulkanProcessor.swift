import CFFmpeg
import CVulkan
import Foundation
import TesseraAV
import TesseraCore

/// The Vulkan compute `FrameProcessor`: colour conversion fused with separable resampling, rotation,
/// flips, opacity and background, in two passes per frame. Planar YUV to planar 8-bit YUV with no turn,
/// compositing or channel mixing (the common transcode) takes a per-plane fast path (`PlaneResampling`,
/// `plane_vertical`/`plane_horizontal`); everything else the generic kernels.
///
/// One processor can make several outputs of each frame (a ladder's sizes) from one upload: every output
/// has its own passes, intermediate and output buffers, and all of them read the slot's one source buffer
/// in one command buffer.
///
/// ```
///  Frame ─memcpy─▶ slot.source (mapped) ─┬─pass 1─▶ intermediate ─pass 2─▶ output 0 (mapped) ─memcpy─▶ Frame
///                                        └─pass 1─▶ intermediate ─pass 2─▶ output 1 (mapped) ─memcpy─▶ Frame
///                  [staging: copy to device memory, once]              [staging: copy back to host]
/// ```
///
/// Buffers, descriptor sets and command buffers are made once per input geometry, for
/// `framesInFlight` slots; each frame only copies its planes in, resubmits its slot's pre-recorded
/// command buffer and waits on the slot's fence. `submit(_:)`/`receive()` keep several frames in
/// flight; `process(_:)` is one of each. Fence waits block: call from a dedicated pipeline thread.
public final class VulkanProcessor: PipelinedFrameProcessor, MultiOutputFrameProcessor {
    /// The outputs made of each frame, in order; `spec` is the first.
    public let specs: [ProcessingSpec]
    public var spec: ProcessingSpec { specs[0] }
    public var kind: ProcessorKind { .vulkan }
    /// The device the kernels run on, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) (CPU)".
    public var deviceDescription: String { "\(device.name) (\(device.typeName))" }
    /// True when the device is a software rasteriser (lavapipe, SwiftShader): no faster than the CPU path.
    public var deviceIsCPU: Bool { device.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU }
    public let framesInFlight: Int
    /// True when frames go through host staging buffers (discrete GPUs without host-visible VRAM).
    public let usesStaging: Bool

    private let device: VulkanDevice
    private var setup: Setup?
    /// Submitted slots, oldest first, with the input frame whose properties the outputs copy.
    private var inFlight: [(slot: Int, input: Frame)] = []
    private var nextSlot = 0
    /// How jobs that qualify run the per-plane fast path (`PlaneResampling`), or nil for the generic kernels
    /// only. Tests change it to compare the two, and to run the GPU tuning on any device.
    var planeTuning: PlaneResampling.Tuning?
    /// Whether the current setup runs the fast path (for every output).
    var usesPlaneKernels: Bool { setup?.plans.allSatisfy { $0.planeResampling != nil } ?? false }
    /// Frames the kernels read where they were, with no copy (tests check both ways are taken).
    private(set) var framesReadInPlace = 0
    /// Frames put before the kernels, read in place or copied: one per frame whatever the outputs.
    public private(set) var uploads = 0

    /// - Parameters:
    ///   - framesInFlight: slots of buffers; 2–3 keep the device busy while the CPU copies.
    ///   - forceStaging: go through staging buffers even when the device memory is host-visible
    ///     (to exercise the discrete-GPU path on any device).
    /// - Throws: `MediaError.unsupported` when no Vulkan device exists or the output format is not one the
    ///   kernels write.
    public convenience init(
        spec: ProcessingSpec, framesInFlight: Int = 3, forceStaging: Bool = false
    )
        throws(MediaError)
    {
        try self.init(specs: [spec], framesInFlight: framesInFlight, forceStaging: forceStaging)
    }

    /// A processor making every one of `specs` (at least one) from each frame, with one upload.
    public init(specs: [ProcessingSpec], framesInFlight: Int = 3, forceStaging: Bool = false) throws(MediaError) {
        guard !specs.isEmpty else { throw MediaError(.invalidArgument, "a processor needs at least one output") }
        for spec in specs where PictureLayout(spec.outputFormat) == nil {
            throw MediaError(.unsupported, "the Vulkan kernels cannot write pixel format \(spec.outputFormat)")
        }
        self.specs = specs
        self.framesInFlight = max(1, framesInFlight)
        device = try VulkanDevice.shared()
        usesStaging = forceStaging || device.prefersStaging
        planeTuning = !device.hasInt64 ? nil : device.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? .cpu : .gpu
    }

    deinit {
        for entry in inFlight { try? device.wait(setup?.slots[entry.slot].fence) }
    }

    /// The device that would run the kernels, or why there is none.
    public static func availableDevice() -> Result<String, MediaError> {
        Result { () throws(MediaError) in
            let d = try VulkanDevice.shared()
            return "\(d.name) (\(d.typeName))"
        }
    }

    public func adding(_ spec: ProcessingSpec) throws(MediaError) -> any MultiOutputFrameProcessor {
        let processor = try VulkanProcessor(
            specs: specs + [spec], framesInFlight: framesInFlight, forceStaging: usesStaging)
        processor.planeTuning = planeTuning
        return processor
    }

    public func process(_ input: Frame) throws(MediaError) -> Frame { try processAll(input)[0] }

    public func processAll(_ input: Frame) throws(MediaError) -> [Frame] {
        while !inFlight.isEmpty { _ = try receiveAll() }
        try submit(input)
        guard let outputs = try receiveAll() else { throw MediaError(.device, "Vulkan: submitted frame vanished") }
        return outputs
    }

    /// Frames submitted and not yet received.
    public var pendingCount: Int { inFlight.count }

    /// Copies `input` into a free slot and starts the kernels on it. With `framesInFlight` frames pending,
    /// first `receive()` one.
    ///
    /// - Throws: `.invalidArgument` when every slot is pending, `.unsupported` for an input format the
    ///   kernels cannot read, `.ffmpeg` when the device fails.
    public func submit(_ input: Frame) throws(MediaError) {
        guard inFlight.count < framesInFlight else {
            throw MediaError(.invalidArgument, "all \(framesInFlight) Vulkan slots are busy; receive a frame first")
        }
        let keys = specs.map { spec in
            ProcessingPlan.Input(
                format: PixelFormat(input.pixelFormat), width: input.width, height: input.height,
                matrix: input.colorMatrix, range: input.colorRange, chromaLocation: input.chromaLocation,
                primaries: spec.toneMap != nil ? input.colorPrimaries : .unspecified)
        }
        if setup?.plans.map(\.input) != keys {
            while !inFlight.isEmpty { _ = try receiveAll() }
            setup = nil
            let plans = try zip(keys, specs).map { (key, spec) throws(MediaError) in
                try ProcessingPlan(input: key, spec: spec, planeKernels: planeTuning)
            }
            setup = try Setup(device: device, plans: plans, slots: framesInFlight, staging: usesStaging)
        }
        guard let setup else { return }
        let index = nextSlot
        nextSlot = (nextSlot + 1) % framesInFlight
        let slot = setup.slots[index]
        // On a CPU device the kernels can read the frame where it is; else (or when its planes are not laid
        // out for that) it is copied into the slot.
        if !usesStaging, setup.readInPlace(input, slot: index) {
            framesReadInPlace += 1
        } else {
            try setup.readOwnSource(slot: index)
            guard let base = slot.source.mapped else {
                throw MediaError(.device, "Vulkan: upload buffer is not mapped")
            }
            for (p, plane) in setup.sourcePlanes.enumerated() {
                guard let data = input.plane(p) else { throw MediaError(.invalidArgument, "frame has no plane \(p)") }
                copyPlane(
                    from: data, sourceStride: input.linesize(p), to: base + plane.offset,
                    destinationStride: plane.stride, rowBytes: plane.rowBytes, rows: plane.rows)
            }
        }
        uploads += 1
        var fence: VkFence? = slot.fence
        try vk(vkResetFences(device.device, 1, &fence), "reset a fence")
        try device.submit(slot.commandBuffer, fence: slot.fence)
        inFlight.append((index, input))
    }

    /// Waits for the oldest submitted frame and returns it processed (the first output); nil when nothing
    /// is pending.
    ///
    /// - Throws: `.ffmpeg` when the device fails or the output frame cannot be allocated.
    public func receive() throws(MediaError) -> Frame? { try receiveAll()?.first }

    /// Waits for the oldest submitted frame and returns every output of it, in `specs`' order; nil when
    /// nothing is pending.
    public func receiveAll() throws(MediaError) -> [Frame]? {
        guard let setup, !inFlight.isEmpty else { return nil }
        let (index, input) = inFlight.removeFirst()
        let slot = setup.slots[index]
        try device.wait(slot.fence)
        return try zip(setup.outputs, slot.outputs).map { (made, buffers) throws(MediaError) in
            let output = try made.pool.makeFrame()
            guard let from = buffers.output.mapped, let to = FramePool.base(of: output) else {
                throw MediaError(.device, "Vulkan: download buffer is not mapped")
            }
            memcpy(to, from, made.plan.outputBytes)
            try tagOutput(output, from: input, plan: made.plan)
            return output
        }
    }

    private func tagOutput(_ output: Frame, from input: Frame, plan: ProcessingPlan) throws(MediaError) {
        try ff(av_frame_copy_props(output.pointer, input.pointer), "copy frame properties")
        let o = output.pointer
        o.pointee.colorspace = plan.output.isRGB ? AVCOL_SPC_RGB : avColorSpace(plan.outputMatrix)
        o.pointee.color_range = plan.outputRange == .full ? AVCOL_RANGE_JPEG : AVCOL_RANGE_MPEG
        o.pointee.chroma_location =
            plan.output.log2ChromaY > 0
            ? AVCHROMA_LOC_LEFT
            : (plan.output.log2ChromaX > 0 ? AVCHROMA_LOC_LEFT : AVCHROMA_LOC_UNSPECIFIED)
        o.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        if plan.toneMaps { output.markToneMapped() }
    }
}

/// One slot's buffers and its pre-recorded command buffer: one source, and each output's own.
private struct Slot {
    /// One output's buffers in a slot, and its descriptor set (binding 0 its view of the slot's source).
    struct Output {
        let intermediate: VulkanBuffer
        let output: VulkanBuffer
        let outputDevice: VulkanBuffer?
        let views: [VulkanTexelView]
        let set: VkDescriptorSet?
    }
    let source: VulkanBuffer
    let sourceDevice: VulkanBuffer?
    let outputs: [Output]
    let commandBuffer: VkCommandBuffer
    let fence: VkFence
}

/// A frame's own memory, read in place by a slot (`Setup.readInPlace`): the buffer over it and where its
/// planes start (offset from the buffer's start, stride), in bytes.
private struct InPlaceSource {
    let buffer: VulkanBuffer
    let view: VulkanTexelView
    let planes: [(offset: Int, stride: Int)]
}

/// What one output needs whatever the slot: its plan, parameters, tables, pipelines and frame pool.
private struct OutputSetup {
    let plan: ProcessingPlan
    let params: VulkanBuffer
    let tables: VulkanTexelView
    /// The same tables in 16-byte texels (the fast path's horizontal spans).
    let wideTables: VulkanTexelView
    let pool: FramePool
    let pipelines: (vertical: VkPipeline?, horizontal: [VkPipeline?])
    /// The fast path's kernels, and its pipelines per plane (nil and empty on the generic path).
    let planeKernels: (vertical: ComputeKernel, horizontal: ComputeKernel)?
    let planePipelines: [(vertical: VkPipeline, horizontal: VkPipeline)]
    var intermediateBytes: Int { 4 * (plan.planeResampling?.intermediateWords ?? plan.intermediateWords) }
}

/// Everything made for one input geometry: the plans, each output's parameters and pipelines, the pools
/// and the slots.
private final class Setup {
    let device: VulkanDevice
    let outputs: [OutputSetup]
    var plans: [ProcessingPlan] { outputs.map(\.plan) }
    /// Where the source's planes sit in a slot's source buffer (the same in every plan: it is the input's).
    let sourcePlanes: [ProcessingPlan.PlaneSlot]
    let sourceBytes: Int
    let commandPool: VkCommandPool
    let descriptorPool: VkDescriptorPool
    var slots: [Slot] = []
    /// Per slot, the frame memory its commands read in place (kept until the slot is next used), or nil
    /// when they read the slot's own source buffer.
    private var inPlace: [InPlaceSource?] = []

    init(device: VulkanDevice, plans: [ProcessingPlan], slots count: Int, staging: Bool) throws(MediaError) {
        self.device = device
        sourcePlanes = plans[0].sourcePlanes
        sourceBytes = plans[0].sourceBytes
        let d = device.device
        let groups = device.limits.maxComputeWorkGroupCount
        let limit = Int(device.limits.maxStorageBufferRange)
        for plan in plans {
            if plan.planeResampling != nil, device.planeKernels == nil {
                throw MediaError(
                    .unsupported, "Vulkan: \(device.name) has no 64-bit integers for the per-plane kernels")
            }
            let dispatches: [(x: Int, y: Int, z: Int)] =
                [plan.verticalDispatch, plan.horizontalDispatch]
                + (plan.planeResampling?.planes ?? []).flatMap { p in
                    [(1, p.verticalGroups, 1), (p.horizontalDispatch.x, p.horizontalDispatch.y, 1)]
                }
            guard dispatches.allSatisfy({ $0.x <= Int(groups.0) && $0.y <= Int(groups.1) && $0.z <= Int(groups.2) })
            else {
                throw MediaError(
                    .unsupported, "Vulkan: \(device.name) cannot dispatch enough workgroups for this picture size")
            }
            let largest = max(
                plan.sourceBytes, plan.outputBytes,
                4 * (plan.planeResampling?.intermediateWords ?? plan.intermediateWords))
            guard largest <= limit else {
                throw MediaError(
                    .unsupported,
                    "Vulkan: \(device.name) allows storage buffers up to \(limit) bytes; "
                        + "this job needs \(largest)")
            }
        }

        let commandPool = try device.makeCommandPool(resettableBuffers: true)
        self.commandPool = commandPool
        let descriptorPool: VkDescriptorPool
        let sets = count * plans.count
        do throws(MediaError) {
            descriptorPool = try device.makeDescriptorPool(
                sizes: [
                    VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: UInt32(2 * sets)),
                    VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, descriptorCount: UInt32(sets)),
                    VkDescriptorPoolSize(
                        type: VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, descriptorCount: UInt32(4 * sets)),
                ], maxSets: sets)
        } catch {
            vkDestroyCommandPool(d, commandPool, nil)
            throw error
        }
        self.descriptorPool = descriptorPool
        outputs = try plans.map { (plan) throws(MediaError) in
            try Self.outputSetup(device, commandPool, plan, staging: staging)
        }
        device.savePipelineCache()
        for _ in 0..<count { slots.append(try makeSlot(staging: staging)) }
        inPlace = Array(repeating: nil, count: count)
    }

    /// One output's parameters and tables (written once; on staging devices copied once into device
    /// memory), its pipelines and its frame pool.
    private static func outputSetup(
        _ device: VulkanDevice, _ commandPool: VkCommandPool, _ plan: ProcessingPlan, staging: Bool
    ) throws(MediaError) -> OutputSetup {
        let pool = try FramePool(
            width: plan.outputWidth, height: plan.outputHeight, format: plan.output.format,
            planes: plan.outputPlanes, bytes: plan.outputBytes)
        // The parameter buffer is as large as the shaders declare it.
        let paramBytes = ProcessingPlan.paramWords * 4
        let hostParams = try VulkanBuffer(device: device, size: paramBytes, use: .upload)
        plan.params.withUnsafeBytes { raw in
            if let from = raw.baseAddress { hostParams.mapped?.copyMemory(from: from, byteCount: raw.count) }
        }
        // Whole 16-byte texels, for the wide view.
        let tableWords = plan.planeResampling?.tables ?? plan.tables
        let tableBytes = (tableWords.count * 4 + 15) / 16 * 16
        let hostTables = try VulkanBuffer(device: device, size: tableBytes, use: .upload)
        tableWords.withUnsafeBytes { raw in
            if let from = raw.baseAddress { hostTables.mapped?.copyMemory(from: from, byteCount: raw.count) }
        }
        let params: VulkanBuffer
        let tables: VulkanTexelView
        let wideTables: VulkanTexelView
        if staging {
            params = try VulkanBuffer(device: device, size: paramBytes, use: .deviceOnly)
            try oneShotCopy(device, commandPool, from: hostParams, to: params, bytes: paramBytes)
            let deviceTables = try VulkanBuffer(device: device, size: tableBytes, use: .deviceOnly)
            try oneShotCopy(device, commandPool, from: hostTables, to: deviceTables, bytes: tableBytes)
            tables = try VulkanTexelView(deviceTables)
            wideTables = try VulkanTexelView(deviceTables, wide: true)
        } else {
            params = hostParams
            tables = try VulkanTexelView(hostTables)
            wideTables = try VulkanTexelView(hostTables, wide: true)
        }
        // Horizontal pipelines specialised per output grid: its index, the turn and the channels it reads.
        let pipelines = (
            try device.verticalPass.pipeline(),
            try plan.gridChannels.indices.map { (g) throws(MediaError) in
                try device.horizontalPass.pipeline([
                    UInt32(g), plan.swap ? 1 : 0, plan.gridChannels[g], plan.toneMaps ? 1 : 0,
                ])
            }
        )
        let planeKernels = plan.planeResampling == nil ? nil : device.planeKernels
        var planePipelines: [(vertical: VkPipeline, horizontal: VkPipeline)] = []
        if let planeKernels, let planes = plan.planeResampling?.planes {
            planePipelines = try planes.map { (p) throws(MediaError) in
                (
                    try planeKernels.vertical.pipeline(p.verticalConstants),
                    try planeKernels.horizontal.pipeline(p.horizontalConstants)
                )
            }
        }
        return OutputSetup(
            plan: plan, params: params, tables: tables, wideTables: wideTables, pool: pool, pipelines: pipelines,
            planeKernels: planeKernels, planePipelines: planePipelines)
    }

    deinit {
        let d = device.device
        var fences = slots.map { Optional($0.fence) }
        if !fences.isEmpty { _ = vkWaitForFences(d, UInt32(fences.count), &fences, VK_TRUE, UInt64.max) }
        for slot in slots { vkDestroyFence(d, slot.fence, nil) }
        vkDestroyDescriptorPool(d, descriptorPool, nil)
        vkDestroyCommandPool(d, commandPool, nil)
    }

    private func allocateCommandBuffer() throws(MediaError) -> VkCommandBuffer {
        var info = VkCommandBufferAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        info.commandPool = commandPool
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        info.commandBufferCount = 1
        var buffer: VkCommandBuffer?
        try vk(vkAllocateCommandBuffers(device.device, &info, &buffer), "allocate a command buffer")
        guard let buffer else { throw MediaError(.device, "Vulkan: no command buffer") }
        return buffer
    }

    private func makeFence(signalled: Bool) throws(MediaError) -> VkFence {
        var info = VkFenceCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        info.flags = signalled ? VK_FENCE_CREATE_SIGNALED_BIT.rawValue : 0
        var fence: VkFence?
        try vk(vkCreateFence(device.device, &info, nil, &fence), "create a fence")
        guard let fence else { throw MediaError(.device, "Vulkan: no fence") }
        return fence
    }

    private static func oneShotCopy(
        _ device: VulkanDevice, _ commandPool: VkCommandPool, from source: VulkanBuffer,
        to destination: VulkanBuffer, bytes: Int
    ) throws(MediaError) {
        var info = VkCommandBufferAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        info.commandPool = commandPool
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        info.commandBufferCount = 1
        var allocated: VkCommandBuffer?
        try vk(vkAllocateCommandBuffers(device.device, &info, &allocated), "allocate a command buffer")
        guard let cb = allocated else { throw MediaError(.device, "Vulkan: no command buffer") }
        var cbCopy: VkCommandBuffer? = cb
        defer { vkFreeCommandBuffers(device.device, commandPool, 1, &cbCopy) }
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try vk(vkBeginCommandBuffer(cb, &begin), "begin a command buffer")
        var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(bytes))
        vkCmdCopyBuffer(cb, source.buffer, destination.buffer, 1, &region)
        try vk(vkEndCommandBuffer(cb), "record a copy")
        var fenceInfo = VkFenceCreateInfo()
        fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        var created: VkFence?
        try vk(vkCreateFence(device.device, &fenceInfo, nil, &created), "create a fence")
        guard let fence = created else { throw MediaError(.device, "Vulkan: no fence") }
        defer { vkDestroyFence(device.device, fence, nil) }
        try device.submit(cb, fence: fence)
        try device.wait(fence)
    }

    private func makeSlot(staging: Bool) throws(MediaError) -> Slot {
        let source = try VulkanBuffer(device: device, size: sourceBytes, use: .upload)
        let sourceDevice = staging ? try VulkanBuffer(device: device, size: sourceBytes, use: .deviceOnly) : nil
        let outputs = try self.outputs.map { (made) throws(MediaError) in
            try makeSlotOutput(made, source: sourceDevice ?? source, staging: staging)
        }
        let cb = try allocateCommandBuffer()
        // Signalled so the first reset-and-submit of each slot looks like every later one.
        let fence = try makeFence(signalled: true)
        let slot = Slot(
            source: source, sourceDevice: sourceDevice, outputs: outputs, commandBuffer: cb, fence: fence)
        try record(slot, sourcePlanes: nil)
        return slot
    }

    /// One output's buffers in a slot, and its descriptor set over them and the slot's `source`.
    private func makeSlotOutput(
        _ made: OutputSetup, source: VulkanBuffer, staging: Bool
    ) throws(MediaError)
        -> Slot.Output
    {
        let plan = made.plan
        let intermediate = try VulkanBuffer(device: device, size: made.intermediateBytes, use: .deviceOnly)
        let output = try VulkanBuffer(device: device, size: plan.outputBytes, use: .download)
        let outputDevice = staging ? try VulkanBuffer(device: device, size: plan.outputBytes, use: .deviceOnly) : nil

        // Descriptor set: 0 source texels, 1 intermediate, 2 params, 3 output, 4 intermediate texels, 5 tables;
        // on the fast path: 0 source, 1 intermediate, 2 intermediate texels, 3 output, 4 tables, 5 tables,
        // with 16-byte texels but in 4.
        let fast = plan.planeResampling != nil
        let sourceTexels = try VulkanTexelView(source, wide: fast)
        let intermediateTexels = try VulkanTexelView(intermediate, wide: fast)
        let kernel = made.planeKernels?.vertical ?? device.verticalPass
        var layout: VkDescriptorSetLayout? = kernel.setLayout
        var allocInfo = VkDescriptorSetAllocateInfo()
        allocInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
        allocInfo.descriptorPool = descriptorPool
        allocInfo.descriptorSetCount = 1
        var set: VkDescriptorSet?
        let r = withUnsafePointer(to: &layout) { p in
            allocInfo.pSetLayouts = p
            return vkAllocateDescriptorSets(device.device, &allocInfo, &set)
        }
        try vk(r, "allocate a descriptor set")
        let storage = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
        writeDescriptors(
            device.device, set: set,
            fast
                ? [
                    .texels(sourceTexels), .buffer(intermediate, storage), .texels(intermediateTexels),
                    .buffer(outputDevice ?? output, storage), .texels(made.tables), .texels(made.wideTables),
                ]
                : [
                    .texels(sourceTexels), .buffer(intermediate, storage),
                    .buffer(made.params, VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER),
                    .buffer(outputDevice ?? output, storage), .texels(intermediateTexels), .texels(made.tables),
                ])
        return Slot.Output(
            intermediate: intermediate, output: output, outputDevice: outputDevice,
            views: [sourceTexels, intermediateTexels], set: set)
    }

    /// Records a slot's commands: the upload once, every output's passes, every output's download.
    /// `sourcePlanes` (fast path only) where the planes are when the slot reads a frame in place.
    private func record(_ slot: Slot, sourcePlanes: [(offset: Int, stride: Int)]?) throws(MediaError) {
        let cb = slot.commandBuffer
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        try vk(vkBeginCommandBuffer(cb, &begin), "begin a command buffer")
        let compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue
        let transfer = VK_PIPELINE_STAGE_TRANSFER_BIT.rawValue
        if let sourceDevice = slot.sourceDevice {
            var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(sourceBytes))
            vkCmdCopyBuffer(cb, slot.source.buffer, sourceDevice.buffer, 1, &region)
            barrier(
                cb, from: transfer, VK_ACCESS_TRANSFER_WRITE_BIT.rawValue, to: compute,
                VK_ACCESS_SHADER_READ_BIT.rawValue)
        }
        for (made, buffers) in zip(outputs, slot.outputs) {
            var set = buffers.set
            let plan = made.plan
            if let fastPlan = plan.planeResampling, let planeKernels = made.planeKernels {  // init refuses one without
                recordPlanes(cb, set: set, fastPlan, made, kernels: planeKernels, sourcePlanes: sourcePlanes)
            } else {
                vkCmdBindDescriptorSets(
                    cb, VK_PIPELINE_BIND_POINT_COMPUTE, device.verticalPass.pipelineLayout, 0, 1, &set,
                    0, nil)
                vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, made.pipelines.vertical)
                let d1 = plan.verticalDispatch
                vkCmdDispatch(cb, UInt32(d1.x), UInt32(d1.y), UInt32(d1.z))
                barrier(
                    cb, from: compute, VK_ACCESS_SHADER_WRITE_BIT.rawValue, to: compute,
                    VK_ACCESS_SHADER_READ_BIT.rawValue)
                let d2 = plan.horizontalDispatch
                for pipeline in made.pipelines.horizontal {
                    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline)
                    vkCmdDispatch(cb, UInt32(d2.x), UInt32(d2.y), 1)
                }
            }
        }
        if slot.outputs.contains(where: { $0.outputDevice != nil }) {
            barrier(
                cb, from: compute, VK_ACCESS_SHADER_WRITE_BIT.rawValue, to: transfer,
                VK_ACCESS_TRANSFER_READ_BIT.rawValue)
            for (made, buffers) in zip(outputs, slot.outputs) {
                guard let outputDevice = buffers.outputDevice else { continue }
                var region = VkBufferCopy(srcOffset: 0, dstOffset: 0, size: VkDeviceSize(made.plan.outputBytes))
                vkCmdCopyBuffer(cb, outputDevice.buffer, buffers.output.buffer, 1, &region)
            }
            barrier(
                cb, from: transfer, VK_ACCESS_TRANSFER_WRITE_BIT.rawValue, to: VK_PIPELINE_STAGE_HOST_BIT.rawValue,
                VK_ACCESS_HOST_READ_BIT.rawValue)
        } else {
            barrier(
                cb, from: compute, VK_ACCESS_SHADER_WRITE_BIT.rawValue, to: VK_PIPELINE_STAGE_HOST_BIT.rawValue,
                VK_ACCESS_HOST_READ_BIT.rawValue)
        }
        try vk(vkEndCommandBuffer(cb), "record the resampling commands")
    }

    /// Points slot `index` at `frame`'s own memory when the device can read it in place and its planes
    /// allow (16-byte aligned, positive strides, one allocation, every output on the fast path); false
    /// otherwise.
    func readInPlace(_ frame: Frame, slot index: Int) -> Bool {
        guard let alignment = device.hostImportAlignment, plans.allSatisfy({ $0.planeResampling != nil }) else {
            return false
        }
        var addresses: [(address: UInt, stride: Int)] = []
        var low = UInt.max, high: UInt = 0
        for (p, plane) in sourcePlanes.enumerated() {
            guard let data = frame.plane(p) else { return false }
            let address = UInt(bitPattern: data), stride = frame.linesize(p)
            guard stride >= plane.rowBytes, stride % 16 == 0, address % 16 == 0 else { return false }
            // The kernels read whole 16-byte texels of each row.
            low = min(low, address)
            high = max(high, address + UInt(stride * (plane.rows - 1) + (plane.rowBytes + 15) / 16 * 16))
            addresses.append((address, stride))
        }
        let a = UInt(alignment)
        let start = low / a * a, end = (high + a - 1) / a * a
        guard end - start <= UInt(2 * sourceBytes) + 2 * a,
            let pointer = UnsafeMutableRawPointer(bitPattern: start),
            let buffer = try? VulkanBuffer(device: device, importing: pointer, size: Int(end - start)),
            let view = try? VulkanTexelView(buffer, wide: true)
        else { return false }
        let source = InPlaceSource(
            buffer: buffer, view: view,
            planes: addresses.map { (Int($0.address - start), $0.stride) })
        for output in slots[index].outputs { writeDescriptors(device.device, set: output.set, [.texels(view)]) }
        guard (try? record(slots[index], sourcePlanes: source.planes)) != nil else {
            inPlace[index] = nil
            return false
        }
        inPlace[index] = source
        return true
    }

    /// Points slot `index` back at its own source buffer, if it was reading a frame in place.
    func readOwnSource(slot index: Int) throws(MediaError) {
        guard inPlace[index] != nil else { return }
        let slot = slots[index]
        for output in slot.outputs { writeDescriptors(device.device, set: output.set, [.texels(output.views[0])]) }
        try record(slot, sourcePlanes: nil)
        inPlace[index] = nil
    }
}

extension Setup {
    /// The fast path's commands for one output: every plane's vertical pass, then every plane's horizontal
    /// pass.
    fileprivate func recordPlanes(
        _ cb: VkCommandBuffer, set: VkDescriptorSet?, _ fastPlan: PlaneResampling, _ made: OutputSetup,
        kernels: (vertical: ComputeKernel, horizontal: ComputeKernel),
        sourcePlanes: [(offset: Int, stride: Int)]?
    ) {
        func push(_ kernel: ComputeKernel, _ words: [UInt32]) {
            var padded = words + [UInt32](repeating: 0, count: PlaneResampling.pushConstantBytes / 4 - words.count)
            vkCmdPushConstants(
                cb, kernel.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0,
                UInt32(PlaneResampling.pushConstantBytes), &padded)
        }
        var set = set
        let compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, kernels.vertical.pipelineLayout, 0, 1, &set, 0, nil)
        for (p, plane) in fastPlan.planes.enumerated() {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, made.planePipelines[p].vertical)
            var vertical = plane.vertical
            if let sourcePlanes {  // in 16-byte texels, as the shader reads them
                vertical[0] = UInt32(sourcePlanes[p].offset / 16)
                vertical[1] = UInt32(sourcePlanes[p].stride / 16)
            }
            push(kernels.vertical, vertical)
            vkCmdDispatch(cb, 1, UInt32(plane.verticalGroups), 1)
        }
        barrier(cb, from: compute, VK_ACCESS_SHADER_WRITE_BIT.rawValue, to: compute, VK_ACCESS_SHADER_READ_BIT.rawValue)
        vkCmdBindDescriptorSets(
            cb, VK_PIPELINE_BIND_POINT_COMPUTE, kernels.horizontal.pipelineLayout, 0, 1, &set, 0,
            nil)
        for (p, plane) in fastPlan.planes.enumerated() {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, made.planePipelines[p].horizontal)
            push(kernels.horizontal, plane.horizontal)
            vkCmdDispatch(cb, UInt32(plane.horizontalDispatch.x), UInt32(plane.horizontalDispatch.y), 1)
        }
    }
}

/// A global memory barrier between two pipeline stages.
func barrier(
    _ cb: VkCommandBuffer?, from srcStage: UInt32, _ srcAccess: UInt32, to dstStage: UInt32,
    _ dstAccess: UInt32
) {
    var memoryBarrier = VkMemoryBarrier()
    memoryBarrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER
    memoryBarrier.srcAccessMask = srcAccess
    memoryBarrier.dstAccessMask = dstAccess
    vkCmdPipelineBarrier(cb, srcStage, dstStage, 0, 1, &memoryBarrier, 0, nil, 0, nil)
}

/// What one binding of a descriptor set points at.
enum Binding {
    case buffer(VulkanBuffer, VkDescriptorType)
    case texels(VulkanTexelView)
}

/// Points binding i of `set` at `bindings[i]` (whole buffers).
func writeDescriptors(_ device: VkDevice, set: VkDescriptorSet?, _ bindings: [Binding]) {
    let infos = bindings.map { binding -> VkDescriptorBufferInfo in
        guard case .buffer(let b, _) = binding else { return VkDescriptorBufferInfo() }
        return VkDescriptorBufferInfo(buffer: b.buffer, offset: 0, range: tessera_VK_WHOLE_SIZE())
    }
    let views = bindings.map { binding -> VkBufferView? in
        guard case .texels(let t) = binding else { return nil }
        return t.view
    }
    infos.withUnsafeBufferPointer { infoPointer in
        views.withUnsafeBufferPointer { viewPointer in
            var writes = bindings.indices.map { i in
                var w = VkWriteDescriptorSet()
                w.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET
                w.dstSet = set
                w.dstBinding = UInt32(i)
                w.descriptorCount = 1
                switch bindings[i] {
                case .buffer(_, let type):
                    w.descriptorType = type
                    w.pBufferInfo = infoPointer.baseAddress.map { $0 + i }
                case .texels:
                    w.descriptorType = VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER
                    w.pTexelBufferView = viewPointer.baseAddress.map { $0 + i }
                }
                return w
            }
            vkUpdateDescriptorSets(device, UInt32(writes.count), &writes, 0, nil)
        }
    }
}
