# The guest kernel has a siw device on eth0 with an active port (everything else builds on it).
CHECK_TIMEOUT=60

guest_part() {
  rdma link show
  rdma link show | grep -q 'siw0/1 state ACTIVE.*netdev eth0' || { echo "no active siw0 on eth0"; return 1; }
  ibv_devinfo -d siw0 | grep -E 'transport|state|max_qp_rd_atom|max_sge_rd' 
  ibv_devinfo -d siw0 | grep -q 'PORT_ACTIVE'
}
