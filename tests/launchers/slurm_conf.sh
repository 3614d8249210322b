# shellcheck shell=bash
# Sourced by slurm_one_node.sh and fake_hosts.sh: the slurm.conf settings that every test cluster
# on this machine shares (root, no munge, no cgroups, no accounting, short timeouts).
#   slurm_conf_common DIR   print them; DIR holds the state and the cluster's own TmpFS
# The cluster's own TmpFS: job ids restart at 1 in every new cluster, and the PMIx plugin refuses to
# start a step whose /tmp/spmix_appdir_<uid>_<job>.<step> an earlier cluster left behind.
slurm_conf_common() {
  cat <<CONF
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$1/state
TmpFS=$1/tmp
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
MessageTimeout=10
InactiveLimit=0
KillWait=2
MinJobAge=10
CONF
}
