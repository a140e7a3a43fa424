import CVulkan
import TesseraAV

/// One storage buffer with its own memory; mapped for its whole life when the memory is host-visible.
/// Keeps its device alive.
final class VulkanBuffer {
    let device: VulkanDevice
    let buffer: VkBuffer
    let memory: VkDeviceMemory
    let size: Int
    /// The persistent mapping; nil for device-only memory.
    let mapped: UnsafeMutableRawPointer?

    enum Use {
        /// The CPU writes it, the GPU reads it (upload).
        case upload
        /// The GPU writes it, the CPU reads it (download): cached memory preferred.
        case download
        /// Only the GPU touches it.
        case deviceOnly
    }

    /// - Throws: `MediaError` when there is no suitable memory type or allocation fails.
    init(device: VulkanDevice, size: Int, use: Use) throws(MediaError) {
        self.device = device
        self.size = max(size, 4)
        let vkDevice = device.device
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(self.size)
        info.usage =
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT.rawValue
            | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_TRANSFER_SRC_BIT.rawValue
            | VK_BUFFER_USAGE_TRANSFER_DST_BIT.rawValue
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        try vk(vkCreateBuffer(vkDevice, &info, nil, &buffer), "create a \(self.size)-byte buffer")
        guard let buffer else { throw MediaError(.device, "Vulkan: no buffer") }

        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(vkDevice, buffer, &requirements)
        let visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT.rawValue | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT.rawValue
        let local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT.rawValue
        let type: UInt32?
        switch use {
        case .upload: type = device.memoryType(bits: requirements.memoryTypeBits, required: visible, preferred: local)
        case .download:
            type = device.memoryType(
                bits: requirements.memoryTypeBits, required: visible,
                preferred: VK_MEMORY_PROPERTY_HOST_CACHED_BIT.rawValue)
        case .deviceOnly:
            type =
                device.memoryType(bits: requirements.memoryTypeBits, required: local)
                ?? device.memoryType(bits: requirements.memoryTypeBits, required: 0)
        }
        guard let type else {
            vkDestroyBuffer(vkDevice, buffer, nil)
            throw MediaError(.unsupported, "Vulkan: \(device.name) has no memory type for a \(use) buffer")
        }
        var allocation = VkMemoryAllocateInfo()
        allocation.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocation.allocationSize = requirements.size
        allocation.memoryTypeIndex = type
        var memory: VkDeviceMemory?
        let result = vkAllocateMemory(vkDevice, &allocation, nil, &memory)
        guard result == VK_SUCCESS, let memory else {
            vkDestroyBuffer(vkDevice, buffer, nil)
            try vk(result, "allocate \(requirements.size) bytes on \(device.name)")
            throw MediaError(.device, "Vulkan: no memory")
        }
        var mapped: UnsafeMutableRawPointer?
        do throws(MediaError) {
            try vk(vkBindBufferMemory(vkDevice, buffer, memory, 0), "bind buffer memory")
            if use != .deviceOnly {
                try vk(vkMapMemory(vkDevice, memory, 0, tessera_VK_WHOLE_SIZE(), 0, &mapped), "map buffer memory")
            }
        } catch {
            vkFreeMemory(vkDevice, memory, nil)
            vkDestroyBuffer(vkDevice, buffer, nil)
            throw error
        }
        self.buffer = buffer
        self.memory = memory
        self.mapped = mapped
    }

    /// A buffer over `size` bytes of host memory at `pointer`, read in place (VK_EXT_external_memory_host:
    /// see `VulkanDevice.hostImportAlignment`, which both must be multiples of). The memory must outlive
    /// every use of the buffer on the device.
    ///
    /// - Throws: `MediaError` when the device cannot import that memory.
    init(device: VulkanDevice, importing pointer: UnsafeMutableRawPointer, size: Int) throws(MediaError) {
        self.device = device
        self.size = size
        let vkDevice = device.device
        let handle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT
        var external = VkExternalMemoryBufferCreateInfo()
        external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO
        external.handleTypes = handle.rawValue
        var info = VkBufferCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO
        info.size = VkDeviceSize(size)
        info.usage = VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT.rawValue | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT.rawValue
        info.sharingMode = VK_SHARING_MODE_EXCLUSIVE
        var buffer: VkBuffer?
        let created = withUnsafePointer(to: &external) { e in
            info.pNext = UnsafeRawPointer(e)
            return vkCreateBuffer(vkDevice, &info, nil, &buffer)
        }
        try vk(created, "create a buffer over \(size) bytes of host memory")
        guard let buffer else { throw MediaError(.device, "Vulkan: no buffer") }

        var requirements = VkMemoryRequirements()
        vkGetBufferMemoryRequirements(vkDevice, buffer, &requirements)
        let bits = requirements.memoryTypeBits & device.hostPointerMemoryTypes(pointer)
        guard let type = device.memoryType(bits: bits, required: 0) else {
            vkDestroyBuffer(vkDevice, buffer, nil)
            throw MediaError(.unsupported, "Vulkan: \(device.name) cannot read this host memory in place")
        }
        var hostPointer = VkImportMemoryHostPointerInfoEXT()
        hostPointer.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT
        hostPointer.handleType = handle
        hostPointer.pHostPointer = pointer
        var allocation = VkMemoryAllocateInfo()
        allocation.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO
        allocation.allocationSize = VkDeviceSize(size)
        allocation.memoryTypeIndex = type
        var memory: VkDeviceMemory?
        let result = withUnsafePointer(to: &hostPointer) { h in
            allocation.pNext = UnsafeRawPointer(h)
            return vkAllocateMemory(vkDevice, &allocation, nil, &memory)
        }
        guard result == VK_SUCCESS, let memory else {
            vkDestroyBuffer(vkDevice, buffer, nil)
            try vk(result, "import \(size) bytes of host memory on \(device.name)")
            throw MediaError(.device, "Vulkan: no memory")
        }
        let bound = vkBindBufferMemory(vkDevice, buffer, memory, 0)
        guard bound == VK_SUCCESS else {
            vkFreeMemory(vkDevice, memory, nil)
            vkDestroyBuffer(vkDevice, buffer, nil)
            try vk(bound, "bind imported host memory")
            throw MediaError(.device, "Vulkan: no memory")
        }
        self.buffer = buffer
        self.memory = memory
        mapped = nil
    }

    deinit {
        if mapped != nil { vkUnmapMemory(device.device, memory) }
        vkDestroyBuffer(device.device, buffer, nil)
        vkFreeMemory(device.device, memory, nil)
    }
}

/// A texel view of a whole buffer: 32-bit words (`R32_UINT`), or 16-byte texels (`R32G32B32A32_UINT`)
/// where one fetch should bring more; keeps the buffer alive.
final class VulkanTexelView {
    let buffer: VulkanBuffer
    let view: VkBufferView

    /// - Throws: `MediaError.unsupported` when the buffer holds more texels than the device's texel buffers.
    init(_ buffer: VulkanBuffer, wide: Bool = false) throws(MediaError) {
        self.buffer = buffer
        let limit = Int(buffer.device.limits.maxTexelBufferElements)
        let texels = buffer.size / (wide ? 16 : 4)
        guard texels <= limit else {
            throw MediaError(
                .unsupported,
                "Vulkan: \(buffer.device.name) reads at most \(limit) texels from a buffer; "
                    + "this job needs \(texels)")
        }
        var info = VkBufferViewCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO
        info.buffer = buffer.buffer
        info.format = wide ? VK_FORMAT_R32G32B32A32_UINT : VK_FORMAT_R32_UINT
        info.offset = 0
        info.range = tessera_VK_WHOLE_SIZE()
        var view: VkBufferView?
        try vk(vkCreateBufferView(buffer.device.device, &info, nil, &view), "create a texel view")
        guard let view else { throw MediaError(.device, "Vulkan: no texel view") }
        self.view = view
    }

    deinit { vkDestroyBufferView(buffer.device.device, view, nil) }
}
