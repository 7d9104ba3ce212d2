from judgeaudit.cli import main

raise SystemExit(main())
