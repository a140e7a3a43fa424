import CVulkan
import Foundation
import TesseraAV

/// One compute shader with its descriptor-set and pipeline layouts (one buffer descriptor per entry of
/// `bindings`, plus optional push constants), and its pipelines: one per set of specialisation
/// constants (32-bit, ids 0, 1, 2, …), built on first use through the device's pipeline cache.
/// Owned by `VulkanDevice`, which destroys it.
final class ComputeKernel: @unchecked Sendable {
    let setLayout: VkDescriptorSetLayout
    let pipelineLayout: VkPipelineLayout
    let bindings: [VkDescriptorType]
    private let device: VkDevice
    private let module: VkShaderModule
    private let cache: VkPipelineCache?
    private var pipelines: [[UInt32]: VkPipeline] = [:]
    private let lock = NSLock()

    /// Pipelines built so far (the device saves its pipeline cache when this grows).
    var builtCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return pipelines.count
    }

    /// - Throws: `MediaError` when the driver rejects the SPIR-V or runs out of memory.
    init(
        device: VkDevice, bindings: [VkDescriptorType], pushConstantBytes: Int, code: [UInt32],
        cache: VkPipelineCache?
    ) throws(MediaError) {
        self.device = device
        self.bindings = bindings
        self.cache = cache
        var layoutBindings = bindings.indices.map { i in
            VkDescriptorSetLayoutBinding(
                binding: UInt32(i), descriptorType: bindings[i],
                descriptorCount: 1, stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue,
                pImmutableSamplers: nil)
        }
        var setLayout: VkDescriptorSetLayout?
        var info = VkDescriptorSetLayoutCreateInfo()
        info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO
        info.bindingCount = UInt32(bindings.count)
        let r1 = layoutBindings.withUnsafeMutableBufferPointer { p in
            info.pBindings = UnsafePointer(p.baseAddress)
            return vkCreateDescriptorSetLayout(device, &info, nil, &setLayout)
        }
        try vk(r1, "create a descriptor set layout")
        guard let setLayout else { throw MediaError(.device, "Vulkan: no descriptor set layout") }

        var pipelineLayout: VkPipelineLayout?
        var range = VkPushConstantRange(
            stageFlags: VK_SHADER_STAGE_COMPUTE_BIT.rawValue, offset: 0,
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
            throw MediaError(.device, "Vulkan: no pipeline layout")
        }

        var module: VkShaderModule?
        let r3 = code.withUnsafeBufferPointer { words in
            var moduleInfo = VkShaderModuleCreateInfo()
            moduleInfo.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO
            moduleInfo.codeSize = words.count * 4
            moduleInfo.pCode = words.baseAddress
            return vkCreateShaderModule(device, &moduleInfo, nil, &module)
        }
        guard r3 == VK_SUCCESS, let module else {
            vkDestroyPipelineLayout(device, pipelineLayout, nil)
            vkDestroyDescriptorSetLayout(device, setLayout, nil)
            try vk(r3, "load a compute shader")
            throw MediaError(.device, "Vulkan: no shader module")
        }
        self.setLayout = setLayout
        self.pipelineLayout = pipelineLayout
        self.module = module
    }

    /// The pipeline for these specialisation constants, built on first use.
    ///
    /// - Throws: `MediaError` when the driver cannot build it.
    func pipeline(_ constants: [UInt32] = []) throws(MediaError) -> VkPipeline {
        lock.lock()
        defer { lock.unlock() }
        if let existing = pipelines[constants] { return existing }
        var entries = constants.indices.map {
            VkSpecializationMapEntry(constantID: UInt32($0), offset: UInt32(4 * $0), size: 4)
        }
        var values = constants
        var pipeline: VkPipeline?
        let result = entries.withUnsafeMutableBufferPointer { entryPointer in
            values.withUnsafeMutableBytes { valueBytes in
                var specialization = VkSpecializationInfo(
                    mapEntryCount: UInt32(constants.count),
                    pMapEntries: UnsafePointer(entryPointer.baseAddress),
                    dataSize: valueBytes.count,
                    pData: UnsafeRawPointer(valueBytes.baseAddress))
                return withUnsafePointer(to: &specialization) { spec in
                    "main".withCString { entry in
                        var info = VkComputePipelineCreateInfo()
                        info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO
                        info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO
                        info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT
                        info.stage.module = module
                        info.stage.pName = entry
                        info.stage.pSpecializationInfo = constants.isEmpty ? nil : spec
                        info.layout = pipelineLayout
                        return vkCreateComputePipelines(device, cache, 1, &info, nil, &pipeline)
                    }
                }
            }
        }
        try vk(result, "build a compute pipeline")
        guard let pipeline else { throw MediaError(.device, "Vulkan: no pipeline") }
        pipelines[constants] = pipeline
        return pipeline
    }

    func destroy() {
        for pipeline in pipelines.values { vkDestroyPipeline(device, pipeline, nil) }
        pipelines = [:]
        vkDestroyShaderModule(device, module, nil)
        vkDestroyPipelineLayout(device, pipelineLayout, nil)
        vkDestroyDescriptorSetLayout(device, setLayout, nil)
    }
}
