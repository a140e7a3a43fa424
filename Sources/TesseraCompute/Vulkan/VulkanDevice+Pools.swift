import CVulkan
import TesseraAV

extension VulkanDevice {
    /// A command pool on the compute queue family; the caller destroys it.
    func makeCommandPool(resettableBuffers: Bool = false) throws(MediaError) -> VkCommandPool {
        var info = VkCommandPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO
        if resettableBuffers { info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT.rawValue }
        info.queueFamilyIndex = queueFamily
        var pool: VkCommandPool?
        try vk(vkCreateCommandPool(device, &info, nil, &pool), "create a command pool")
        guard let pool else { throw MediaError(.device, "Vulkan: no command pool") }
        return pool
    }

    /// A descriptor pool for up to `maxSets` sets drawing on `sizes`; the caller destroys it.
    func makeDescriptorPool(sizes: [VkDescriptorPoolSize], maxSets: Int) throws(MediaError) -> VkDescriptorPool {
        var sizes = sizes
        var info = VkDescriptorPoolCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO
        info.maxSets = UInt32(maxSets)
        info.poolSizeCount = UInt32(sizes.count)
        var pool: VkDescriptorPool?
        let result = sizes.withUnsafeMutableBufferPointer { p in
            info.pPoolSizes = UnsafePointer(p.baseAddress)
            return vkCreateDescriptorPool(device, &info, nil, &pool)
        }
        try vk(result, "create a descriptor pool")
        guard let pool else { throw MediaError(.device, "Vulkan: no descriptor pool") }
        return pool
    }
}
