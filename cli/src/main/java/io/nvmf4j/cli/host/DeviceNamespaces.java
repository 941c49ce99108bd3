package io.nvmf4j.cli.host;

import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;

/** The namespace {@code -n/--namespace-id} names, or the first active one (nvme-cli: the device's own). */
final class DeviceNamespaces {

    private DeviceNamespaces() {
    }

    static Namespace of(NvmeController controller, Long nsid, String endpoint) {
        if (nsid == null) {
            try {
                return controller.firstNamespace();
            } catch (NvmfException e) {
                throw new CommandFailure("the subsystem at " + endpoint + " has no active namespace", e);
            }
        }
        return controller.namespace(nsid).orElseThrow(() -> new CommandFailure(
                "namespace " + nsid + " is not active on " + endpoint));
    }
}
