package io.nvmf4j.verbs;

/**
 * Device limits, named after {@code struct ibv_device_attr}.
 *
 * @param vendor          a short description of the device/provider
 * @param maxMrSize       largest memory region in bytes
 * @param maxQp           most queue pairs
 * @param maxQpWr         most outstanding work requests per work queue
 * @param maxSge          most scatter/gather elements per send or receive work request
 * @param maxSgeRd        most scatter/gather elements of the local sink of an RDMA Read (Linux siw: 1)
 * @param maxCq           most completion queues
 * @param maxCqe          most entries per completion queue
 * @param maxMr           most memory regions
 * @param maxPd           most protection domains
 * @param maxQpRdAtom     most RDMA Reads a queue pair answers at once as responder (IRD)
 * @param maxQpInitRdAtom most RDMA Reads a queue pair has outstanding as requester (ORD)
 * @param maxInlineData   most bytes a send may carry inline
 */
public record DeviceAttributes(
        String vendor,
        long maxMrSize,
        int maxQp,
        int maxQpWr,
        int maxSge,
        int maxSgeRd,
        int maxCq,
        int maxCqe,
        int maxMr,
        int maxPd,
        int maxQpRdAtom,
        int maxQpInitRdAtom,
        int maxInlineData) {
}
