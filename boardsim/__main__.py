from boardsim.cli import main

raise SystemExit(main())
