import CVulkan
import TesseraAV
import TesseraCore

/// Buffers and a pre-recorded command buffer for the blend kernel, made on a processor's first blend.
///
/// The blend reads each input word once, so it uses host-visible buffers directly even on discrete GPUs
/// (a staging copy would move the same bytes once more).
final class BlendSetup {
    let device: VulkanDevice
    let first: VulkanBuffer
    let second: VulkanBuffer
    let result: VulkanBuffer
    let planes: [ProcessingPlan.PlaneSlot]
    let bytes: Int
    let pool: FramePool
    private let bytesPerSample: UInt32
    private let shift: UInt32
    private let commandPool: VkCommandPool
    private let descriptorPool: VkDescriptorPool
    private let set: VkDescriptorSet?
    private let fence: VkFence
    private let commandBuffer: VkCommandBuffer

    init(device: VulkanDevice, spec: ProcessingSpec, layout: PictureLayout) throws(MediaError) {
        self.device = device
        let d = device.device
        var offset = 0
        var planes: [ProcessingPlan.PlaneSlot] = []
        for p in 0..<layout.planeCount {
            let rowBytes = layout.rowBytes(p, width: spec.outputWidth)
            let stride = (rowBytes + 63) / 64 * 64
            let rows = layout.planeSize(p, width: spec.outputWidth, height: spec.outputHeight).height
            planes.append(.init(offset: offset, stride: stride, rowBytes: rowBytes, rows: rows))
            offset += (stride * rows + 255) / 256 * 256
        }
        self.planes = planes
        bytes = offset
        bytesPerSample = UInt32(layout.channels[0].bytesPerSample)
        shift = UInt32(layout.channels[0].shift)
        pool = try FramePool(
            width: spec.outputWidth, height: spec.outputHeight, format: spec.outputFormat,
            planes: planes, bytes: bytes)
        first = try VulkanBuffer(device: device, size: bytes, use: .upload)
        second = try VulkanBuffer(device: device, size: bytes, use: .upload)
        result = try VulkanBuffer(device: device, size: bytes, use: .download)

        let commandPool = try device.makeCommandPool(resettableBuffers: true)
        self.commandPool = commandPool
        let descriptorPool: VkDescriptorPool
        do throws(MediaError) {
            descriptorPool = try device.makeDescriptorPool(
                sizes: [VkDescriptorPoolSize(type: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptorCount: 3)], maxSets: 1)
        } catch {
            vkDestroyCommandPool(d, commandPool, nil)
            throw error
        }
        self.descriptorPool = descriptorPool
        var layoutHandle: VkDescriptorSetLayout? = device.blend.setLayout
        var allocInfo = VkDescriptorSetAllocateInfo()
        allocInfo.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO
        allocInfo.descriptorPool = descriptorPool
        allocInfo.descriptorSetCount = 1
        var set: VkDescriptorSet?
        let r2 = withUnsafePointer(to: &layoutHandle) { p in
            allocInfo.pSetLayouts = p
            return vkAllocateDescriptorSets(d, &allocInfo, &set)
        }
        self.set = set
        var info = VkCommandBufferAllocateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO
        info.commandPool = commandPool
        info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY
        info.commandBufferCount = 1
        var cb: VkCommandBuffer?
        let r3 = vkAllocateCommandBuffers(d, &info, &cb)
        var fenceInfo = VkFenceCreateInfo()
        fenceInfo.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO
        var fence: VkFence?
        let r4 = vkCreateFence(d, &fenceInfo, nil, &fence)
        guard r2 == VK_SUCCESS, r3 == VK_SUCCESS, r4 == VK_SUCCESS, let cb, let fence else {
            vkDestroyFence(d, fence, nil)
            vkDestroyDescriptorPool(d, descriptorPool, nil)
            vkDestroyCommandPool(d, commandPool, nil)
            try vk(r2 != VK_SUCCESS ? r2 : (r3 != VK_SUCCESS ? r3 : r4), "set up the blend kernel")
            throw MediaError(.device, "Vulkan: blend setup failed")
        }
        commandBuffer = cb
        self.fence = fence
        let storage = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER
        writeDescriptors(d, set: set, [.buffer(first, storage), .buffer(second, storage), .buffer(result, storage)])
    }

    deinit {
        let d = device.device
        var f: VkFence? = fence
        _ = vkWaitForFences(d, 1, &f, VK_TRUE, UInt64.max)
        vkDestroyFence(d, fence, nil)
        vkDestroyDescriptorPool(d, descriptorPool, nil)
        vkDestroyCommandPool(d, commandPool, nil)
    }

    /// Blends `first` and `second` into `result` and waits. The weight is a push constant, so the command
    /// buffer is recorded again per call (a handful of commands).
    func run(weight: Float) throws(MediaError) {
        let words = bytes / 4
        let rowWords = min(words, 65_535 * 64)
        var constants: (UInt32, UInt32, Float, UInt32, UInt32) = (
            UInt32(words), bytesPerSample, weight,
            UInt32(rowWords), shift
        )
        try vk(vkResetCommandBuffer(commandBuffer, 0), "reset the blend commands")
        var begin = VkCommandBufferBeginInfo()
        begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO
        begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT.rawValue
        try vk(vkBeginCommandBuffer(commandBuffer, &begin), "begin the blend commands")
        var s = set
        vkCmdBindDescriptorSets(
            commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, device.blend.pipelineLayout, 0, 1, &s, 0,
            nil)
        vkCmdBindPipeline(commandBuffer, VK_PIPELINE_BIND_POINT_COMPUTE, try device.blend.pipeline())
        vkCmdPushConstants(
            commandBuffer, device.blend.pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT.rawValue, 0, 20,
            &constants)
        vkCmdDispatch(commandBuffer, UInt32((rowWords + 63) / 64), UInt32((words + rowWords - 1) / rowWords), 1)
        barrier(
            commandBuffer, from: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT.rawValue, VK_ACCESS_SHADER_WRITE_BIT.rawValue,
            to: VK_PIPELINE_STAGE_HOST_BIT.rawValue, VK_ACCESS_HOST_READ_BIT.rawValue)
        try vk(vkEndCommandBuffer(commandBuffer), "record the blend")
        var f: VkFence? = fence
        try vk(vkResetFences(device.device, 1, &f), "reset a fence")
        try device.submit(commandBuffer, fence: fence)
        try device.wait(fence)
    }
}
