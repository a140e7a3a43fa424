import CVulkan
import TesseraAV

/// One compute pipeline with its descriptor-set and pipeline layouts: `bindings` storage buffers at
/// bindings 0..<bindings, plus optional push constants. Owned by `VulkanDevice`, which destroys it.
struct ComputeKernel: @unchecked Sendable {
    let setLayout: VkDescriptorSetLayout
    let pipelineLayout: VkPipelineLayout
    let pipeline: VkPipeline
    let bindingCount: Int

    /// - Throws: `MediaError` when the driver rejects the SPIR-V or runs out of memory.
    init(device: VkDevice, bindings: Int, pushConstantBytes: Int, code: [UInt32], cache: VkPipelineCache?)
        throws(MediaError)
    {
        bindingCount = bindings
        var layoutBindings = (0..<bindings).map { i in
            VkDescriptorSetLayoutBinding(binding: UInt32(i), descriptorType: VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                         descriptorCount: 1, stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue,
                                         pImmutableSamplers: nil)
        }
        var setLayout: VkDescriptorSetLayout?
        var info = VkDescriptorSetLayoutCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
        info.bindingCount = UInt32(bindings)
        let r1 = layoutBindings.withUnsafeMutableBufferPointer { p in
            info.pBindings = UnsafePointer(p.baseAddress)
            return vkCreateDescriptorSetLayout(device, &info, nil, &setLayout)
        }
        try vk(r1, "create a descriptor set layout")
        guard let setLayout else { throw MediaError(.ffmpeg, "Vulkan: no descriptor set layout") }

        var pipelineLayout: VkPipelineLayout?
        var range = VkPushConstantRange(stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue, offset: 0,
                                        size: UInt32(pushConstantBytes))
        var setLayoutCopy: VkDescriptorSetLayout? = setLayout
        var layoutInfo = VkPipelineLayoutCreateInfo()
        layoutInfo.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO
        layoutInfo.setLayoutCount = 1
        let r2 = withUnsafePointer(to: &setLayoutCopy) { sets in
            withUnsafePointer(to: &range) { ranges in
                layoutInfo.pSetLayouts = sets
                layoutInfo.pushConstantRangeCount = pushConstantBytes > 0 ? 1 : 0
                layoutInfo.pPushConstantRanges = pushConstantBytes > 0 ? ranges : nil
                return vkCreatePipelineLayout(device, &layoutInfo, nil, &pipelineLayout)
            }
        }
        guard r2 == VK_SUCCESS, let pipelineLayout else {
            vkDestroyDescriptorSetLayout(device, setLayout, nil)
            try vk(r2, "create a pipeline layout")
            throw MediaError(.ffmpeg, "Vulkan: no pipeline layout")
        }

        var module: VkShaderModule?
        let r3 = code.withUnsafeBufferPointer { words in
            var moduleInfo = VkShaderModuleCreateInfo()
            moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            moduleInfo.codeSize = words.count * 4
            moduleInfo.pCode = words.baseAddress
            return vkCreateShaderModule(device, &moduleInfo, nil, &module)
        }
        var pipeline: VkPipeline?
        var r4 = r3
        if r3 == VK_SUCCESS {
            r4 = "main".withCString { entry in
                var pipelineInfo = VkComputePipelineCreateInfo()
                pipelineInfo.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
                pipelineInfo.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
                pipelineInfo.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT
                pipelineInfo.stage.module = module
                pipelineInfo.stage.pName = entry
                pipelineInfo.layout = pipelineLayout
                return vkCreateComputePipelines(device, cache, 1, &pipelineInfo, nil, &pipeline)
            }
            vkDestroyShaderModule(device, module, nil)
        }
        guard r4 == VK_SUCCESS, let pipeline else {
            vkDestroyPipelineLayout(device, pipelineLayout, nil)
            vkDestroyDescriptorSetLayout(device, setLayout, nil)
            try vk(r4, "build a compute pipeline")
            throw MediaError(.ffmpeg, "Vulkan: no pipeline")
        }
        self.setLayout = setLayout
        self.pipelineLayout = pipelineLayout
        self.pipeline = pipeline
    }

    func destroy(_ device: VkDevice) {
        vkDestroyPipeline(device, pipeline, nil)
        vkDestroyPipelineLayout(device, pipelineLayout, nil)
        vkDestroyDescriptorSetLayout(device, setLayout, nil)
    }
}
