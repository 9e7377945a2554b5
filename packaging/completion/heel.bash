# SPDX-License-Identifier: MIT
# bash completion for heel, heelc and heel-exec. Installed by `make
# install` as share/bash-completion/completions/{heel,heelc,heel-exec}.

_heel_presets="git node python rust"
_heel_sets="user-home credentials cloud-config browser-data keychains shell-history package-credentials shared-temp host-run"

_heel() {
	local cur prev i sub=""
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		run | shell | python) sub=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ -z "$sub" ]; then
		COMPREPLY=($(compgen -W "run shell python --help --version" -- "$cur"))
		return
	fi
	# After the first word that is not an option, it is the command's turn.
	local want_value=" --isolation --preset --network --allow-domain --audit-log --grant --readable --writable --executable --nice --io-priority --limit --max-memory --max-cpu-time --max-file-size --max-processes --max-open-files --max-stack --max-core --working-dir --env --accept --policy --config --shell "
	for ((i = i + 1; i < COMP_CWORD; i++)); do
		local w=${COMP_WORDS[i]}
		if [ "$w" = -- ]; then
			_command_offset $((i + 1))
			return
		fi
		case $want_value in *" $w "*) i=$((i + 1)); continue ;; esac
		case $w in
		-c) [ "$sub" = python ] && return ;;
		-*) ;;
		*) [ "$sub" = run ] && { _command_offset "$i"; return; }; [ "$sub" = python ] && { _filedir; return; } ;;
		esac
	done
	case $prev in
	--isolation) COMPREPLY=($(compgen -W "strict default permissive" -- "$cur")); return ;;
	--preset) COMPREPLY=($(compgen -W "$_heel_presets" -- "$cur")); return ;;
	--network) COMPREPLY=($(compgen -W "deny allow-all allow-list" -- "$cur")); return ;;
	--io-priority) COMPREPLY=($(compgen -W "utility background" -- "$cur")); return ;;
	--limit) COMPREPLY=($(compgen -W "memory= cpu= processes= open-files= file-size= stack= core=" -- "$cur")); compopt -o nospace; return ;;
	--policy) _filedir '@(heel|hpol)'; return ;;
	--config) _filedir '@(heel|toml)'; return ;;
	--readable | --writable | --executable | --working-dir | --audit-log | --grant) _filedir; return ;;
	--shell) COMPREPLY=($(compgen -W "$(grep '^/' /etc/shells 2>/dev/null)" -- "$cur")); return ;;
	--env) COMPREPLY=($(compgen -e -- "$cur")); return ;;
	esac
	if [[ $cur == --protect-*=* || $cur == --allow-gpu=* || $cur == --allow-private=* ]]; then
		COMPREPLY=($(compgen -W "${cur%%=*}=true ${cur%%=*}=false" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		local opts="--isolation --policy --config --preset --grant --readable --writable --executable --allow-gpu
			--network --allow-domain --allow-private --audit-log --max-memory --max-cpu-time --max-file-size
			--max-processes --max-open-files --limit --nice --io-priority --env --working-dir
			--keep-working-dir --print-policy --best-effort --no-namespaces --accept --why -v --help"
		local s
		for s in $_heel_sets; do opts="$opts --protect-$s"; done
		[ "$sub" = shell ] && opts="$opts --shell"
		[ "$sub" = python ] && opts="$opts -c --prepare"
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $sub in
	run) COMPREPLY=($(compgen -c -- "$cur")) ;;
	python) _filedir py ;;
	esac
}

_heelc() {
	local cur prev
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-o | --output) _filedir hpol; return ;;
	-t | --target) COMPREPLY=($(compgen -W "linux macos windows all" -- "$cur")); return ;;
	emit) COMPREPLY=($(compgen -W "landlock seccomp sbpl acl" -- "$cur")); return ;;
	esac
	if [ "$COMP_CWORD" = 1 ] && [[ $cur != -* ]]; then
		COMPREPLY=($(compgen -W "check explain fmt emit" -- "$cur"))
		_filedir heel
		COMPREPLY+=($(compgen -W "check explain fmt emit" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "-o --output -t --target --json --check -i --help --version" -- "$cur"))
		return
	fi
	_filedir '@(heel|hpol)'
}

_heel_exec() {
	local cur prev i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			_command_offset $((i + 1))
			return
		fi
	done
	case $prev in
	--workdir | --cwd) _filedir -d; return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "--workdir --best-effort --no-namespaces --accept --why -v --help --version --" -- "$cur"))
		return
	fi
	if [ "$COMP_CWORD" = 1 ]; then
		COMPREPLY=($(compgen -W "check" -- "$cur"))
	fi
	_filedir hpol
	[ "$COMP_CWORD" = 1 ] && COMPREPLY+=($(compgen -W "check" -- "$cur"))
}

complete -F _heel heel
complete -F _heelc heelc
complete -F _heel_exec heel-exec
